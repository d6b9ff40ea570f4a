"""Alerts through the Python SDK, sync and async, against the real service (test/alerts/alerts.test.ts):
the settings set with a wallet sign-in (the signing secret returned once), refused for an API key, and a
key's spending limit of one run alerting at 80% and 100% once its run is charged."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from agent_rental import AgentRental, ApiError, AsyncAgentRental

from test_limits_and_retries import sign_with


def test_alert_settings_and_a_limits_alerts_sync_and_async(world: dict[str, Any]) -> None:
    wallet = AgentRental(world["api_url"])
    wallet.sign_in(world["renter"]["address"], sign_with(world))
    made = wallet.alerts.set_settings(webhook_url="https://example.com/hooks/python", low_balance_runs=None, rotate_secret=True)
    assert made["webhook_url"] == "https://example.com/hooks/python" and made["low_balance_runs"] is None
    assert made.get("webhook_secret", "").startswith("whsec_")
    shown = wallet.alerts.get_settings()
    assert shown["webhook_url"] == "https://example.com/hooks/python" and "webhook_secret" not in shown
    # An API key may read, never change, the settings.
    keyed = AgentRental(world["api_url"], api_key=world["renter"]["api_key"])
    with pytest.raises(ApiError) as refused:
        keyed.alerts.set_settings(webhook_url="https://example.com/stolen")
    assert (refused.value.code, refused.value.status) == ("forbidden", 403)
    with pytest.raises(ApiError) as bad:
        wallet.alerts.set_settings(webhook_url="http://example.com/plain")
    assert (bad.value.code, bad.value.status) == ("invalid_request", 400)

    price = int(world["listings"]["per_query"]["price_wei"])
    created = wallet.keys.create("alerted", sign_with(world), spend_limits=[{"currency": "ETH", "period": "total", "amount": str(price)}])
    limited = AgentRental(world["api_url"], api_key=created["key"])
    assert limited.execute(world["listings"]["per_query"]["agent_id"], "the one run")["status"] == "completed"

    def limit_alerts() -> list[Any]:
        return [a for a in wallet.alerts.list(limit=100) if a["type"] == "spend_limit" and a["data"].get("id") == created["key_id"]]

    deadline = time.monotonic() + 30
    while len(limit_alerts()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sorted(a["data"]["threshold"] for a in limit_alerts()) == [80, 100]

    async def read_async() -> tuple[Any, list[Any]]:
        client = AsyncAgentRental(world["api_url"], api_key=world["renter"]["api_key"])
        return await client.alerts.get_settings(), await client.alerts.list(limit=100)

    settings, alerts = asyncio.run(read_async())
    assert settings["webhook_url"] == "https://example.com/hooks/python"
    assert {a["alert_id"] for a in alerts} >= {a["alert_id"] for a in limit_alerts()}
    wallet.alerts.set_settings(webhook_url=None)

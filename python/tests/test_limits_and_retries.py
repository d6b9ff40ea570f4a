"""The TypeScript SDK suite's cases on spending limits, sign-in renewal, uploaded inputs and the retry
rules, against the real service (test/sdk/client.test.ts, test/execution/spend-limits.test.ts)."""

from __future__ import annotations

import datetime
import threading
import uuid
from typing import Any

import pytest

from agent_rental import AgentRental, ApiError, SpendLimitError

from conftest import control
from gateway import CuttingProxy


def sign_with(world: dict[str, Any], log: list[str] | None = None) -> Any:
    def sign(message: str) -> str:
        if log is not None:
            log.append(message)
        return str(control(world, "/sign", body={"message": message})["signature"])

    return sign


def test_a_signed_in_jwt_is_renewed_before_its_expiry_by_signing_again(world: dict[str, Any]) -> None:
    signed: list[str] = []
    # A margin longer than the token's life: every call finds the token due for renewal.
    fresh = AgentRental(world["api_url"], token_refresh_margin=7200)
    fresh.sign_in(world["renter"]["address"], sign_with(world, signed))
    calls = [threading.Thread(target=fresh.credentials.list) for _ in range(2)]
    for call in calls:
        call.start()
    for call in calls:
        call.join(30)
    fresh.listings.get(world["listings"]["one_time"]["listing_id"])
    # The sign-in, one renewal the two concurrent calls shared, one for the last call.
    assert len(signed) == 3


def test_a_key_over_its_spending_limit_gets_spend_limit_error_before_any_work(world: dict[str, Any], client: AgentRental) -> None:
    price = int(world["listings"]["per_query"]["price_wei"])
    limit = str(price + price // 2)  # room for one run, not two
    created = client.keys.create("limited", sign_with(world), spend_limits=[{"currency": "ETH", "period": "day", "amount": limit}])
    assert [(l["period"], l["amount"], l["remaining"]) for l in created["spend_limits"]] == [("day", limit, limit)]
    limited = AgentRental(world["api_url"], api_key=created["key"])
    agent = world["listings"]["per_query"]["agent_id"]
    assert limited.execute(agent, "within the limit")["cost_wei"] == price
    task = f"over the limit {uuid.uuid4()}"
    with pytest.raises(SpendLimitError) as refused:
        limited.execute(agent, task)
    error = refused.value
    assert (error.code, error.status) == ("spend_limit_reached", 402)
    assert isinstance(error, ApiError) and error.request_id and error.request_id.startswith("req_")
    assert error.limit is not None and (error.limit["scope"], error.limit["id"], error.limit["amount"], error.limit["remaining"]) == ("key", created["key_id"], limit, str(price // 2))
    midnight = datetime.datetime.combine(datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=1), datetime.time(), datetime.timezone.utc)
    assert error.resets_at is not None and datetime.datetime.fromisoformat(error.resets_at.replace("Z", "+00:00")) == midnight
    assert error.retry_after is not None and 0 < error.retry_after <= 86400
    assert control(world, "/deliveries", task=task)["count"] == 0
    # The limit removed (a wallet sign-in, not an API key), the same key runs again.
    wallet = AgentRental(world["api_url"])
    wallet.sign_in(world["renter"]["address"], sign_with(world))
    assert wallet.keys.set_spend_limits(created["key_id"], [])["spend_limits"] == []
    assert limited.execute(agent, task)["status"] == "completed"


def test_an_uploaded_input_runs_by_its_content_address(world: dict[str, Any], client: AgentRental) -> None:
    stored = client.inputs.upload('{"topic": "kelp"}')
    assert stored["input_uri"].startswith("ipfs://")
    assert client.inputs.upload(b'{"topic": "kelp"}')["input_uri"] == stored["input_uri"]
    run = client.execute(world["listings"]["one_time"]["agent_id"], "from file", input_uri=stored["input_uri"])
    assert run["status"] == "completed"


def test_a_get_is_retried_after_a_500(world: dict[str, Any]) -> None:
    listing_id = world["listings"]["one_time"]["listing_id"]
    proxy = CuttingProxy(world["api_url"], fail=(f"/v1/listings/{listing_id}", 1), status=500)
    try:
        listing = AgentRental(proxy.url, api_key=world["renter"]["api_key"], retry_base_delay=0.01).listings.get(listing_id)
    finally:
        proxy.close()
    assert listing["id"] == listing_id
    assert [line for line, _ in proxy.paths] == [f"GET /v1/listings/{listing_id} HTTP/1.1"] * 2


def test_a_400_is_not_retried_nor_a_post_without_an_idempotency_key(world: dict[str, Any]) -> None:
    proxy = CuttingProxy(world["api_url"], fail=("/v1/keys/challenge", 1))
    try:
        flaky = AgentRental(proxy.url, api_key=world["renter"]["api_key"], retry_base_delay=0.01)
        with pytest.raises(ApiError) as bad:
            flaky.execute(world["listings"]["one_time"]["agent_id"], "x", timeout_seconds=0)
        with pytest.raises(ApiError) as unavailable:
            flaky.keys.create("not retried", sign_with(world))
    finally:
        proxy.close()
    assert (bad.value.code, bad.value.status) == ("invalid_request", 400)
    assert (unavailable.value.code, unavailable.value.status) == ("service_unavailable", 503)
    lines = [line for line, _ in proxy.paths]
    assert lines.count("POST /v1/execute HTTP/1.1") == 1 and lines.count("POST /v1/keys/challenge HTTP/1.1") == 1

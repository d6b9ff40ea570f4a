"""A creator's analytics per currency: the world's creator has per-task, one-time and subscription listings
in ETH and a per-task listing in USDC whose run was charged on the TokenMarketplace. The figures carry
each currency's amounts (decimal strings in its smallest unit, never added across currencies), the
``_wei`` ones exact ints; ``analytics_by_currency`` gathers each currency's, ETH first; ``format_amount``
writes an amount in its currency; the per-currency CSV tables; the asyncio client alike; the currencies
listings may be priced in (``listings.currencies``, no credential)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

from agent_rental import AgentRental, AsyncAgentRental, analytics_by_currency, format_amount, format_units

NOW = datetime.now(timezone.utc)
RANGE: dict[str, Any] = {"from_": NOW - timedelta(days=400), "to": NOW + timedelta(days=400), "granularity": "month"}


def creator_client(world: dict[str, Any]) -> AgentRental:
    return AgentRental(world["api_url"], token=world["creator"]["token"], retry_base_delay=0.01)


def test_format_units_and_amounts_are_exact() -> None:
    assert format_units("250000", 6) == "0.25"
    assert format_units(123_456_789_012_345_678_901, 18) == "123.456789012345678901"
    assert format_units(10**18, 18) == "1"
    assert format_units("0", 6) == "0"
    assert format_units(-1_500_000, 6) == "-1.5"
    assert format_units(42, 0) == "42"
    assert format_amount("475000", {"symbol": "USDC", "address": "0x0", "decimals": 6}) == "0.475 USDC"
    assert format_amount(1_900_000_000_000_000, {"symbol": "ETH", "address": None, "decimals": 18}) == "0.0019 ETH"


def test_the_analytics_give_each_currency_apart(world: dict[str, Any]) -> None:
    token = world["token_listing"]
    client = creator_client(world)
    stats = client.creators.analytics(**RANGE)
    assert [c["currency"]["symbol"] for c in stats["totals"]["by_currency"]] == ["ETH", token["symbol"]]
    usdc_totals = stats["totals"]["by_currency"][1]
    assert usdc_totals["currency"]["decimals"] == 6 and usdc_totals["currency"]["address"].lower() == token["address"].lower()
    assert usdc_totals["revenue"]["by_model"]["per_query"]["gross"] == token["price_units"]
    assert int(usdc_totals["revenue"]["net"]) == int(usdc_totals["revenue"]["gross"]) - int(usdc_totals["revenue"]["fee"])
    # The `_wei` figures are the ETH listings' only, exact ints; ETH's by_currency amounts equal them.
    assert isinstance(stats["totals"]["revenue"]["gross_wei"], int)
    assert stats["totals"]["by_currency"][0]["revenue"]["gross"] == str(stats["totals"]["revenue"]["gross_wei"])
    assert [r["currency"]["symbol"] for r in stats["reconciliation"]["by_currency"]] == ["ETH", token["symbol"]]

    gathered = analytics_by_currency(stats)
    assert [c["currency"]["symbol"] for c in gathered] == ["ETH", token["symbol"]]
    eth, usdc = gathered
    assert [item["listing_id"] for item in usdc["listings"]] == [token["listing_id"]]
    assert len(eth["listings"]) >= 5 and all(item["currency"]["address"] is None for item in eth["listings"])
    assert usdc["totals"] == usdc_totals
    assert len(usdc["series"]) == len(stats["series"])
    assert sum(int(p["revenue"]["gross"]) for p in usdc["series"]) == int(token["price_units"])
    assert [r["wallet"] for r in usdc["top_renters"]] == [token["renter"].lower()]
    # The renter deposited three runs' worth and one was charged.
    assert usdc["balances_outstanding"] == str(2 * int(token["price_units"]))
    reconciliation = usdc["reconciliation"]
    assert reconciliation is not None and reconciliation["matches"] is True
    assert reconciliation["chain_escrow"] is not None and reconciliation["withdrawable"] is not None and reconciliation["vesting"] is not None
    assert int(reconciliation["withdrawable"]) + int(reconciliation["vesting"]) == int(reconciliation["chain_escrow"]) == int(usdc_totals["revenue"]["net"])
    assert format_amount(usdc["totals"]["revenue"]["by_model"]["per_query"]["gross"], usdc["currency"]) == "0.25 USDC"

    one = client.creators.listing_analytics(token["listing_id"], **RANGE)
    assert [c["currency"]["symbol"] for c in analytics_by_currency(one)] == [token["symbol"]]
    assert one["totals"]["runs"]["completed"] == 1 and one["totals"]["revenue"]["gross_wei"] == 0


def test_the_per_currency_tables_as_csv(world: dict[str, Any]) -> None:
    token = world["token_listing"]
    client = creator_client(world)
    lines = client.creators.analytics_csv(table="top_renters_by_currency", listing_id=token["listing_id"], **RANGE).strip().split("\r\n")
    assert lines[0] == "currency,currency_address,decimals,wallet,spend,runs,purchases,renewals"
    row = lines[1].split(",")
    assert (row[0], row[2], row[3]) == (token["symbol"], "6", token["renter"].lower())
    series = client.creators.analytics_csv(table="series_by_currency", **RANGE).strip().split("\r\n")
    assert series[0].split(",")[:5] == ["period", "currency", "currency_address", "decimals", "gross"]
    assert sum(int(line.split(",")[4]) for line in series[1:] if line.split(",")[1] == token["symbol"]) == int(token["price_units"])


def test_the_async_client_answers_the_same(world: dict[str, Any]) -> None:
    sync = creator_client(world).creators.analytics(**RANGE)

    async def read() -> Any:
        client = AsyncAgentRental(world["api_url"], token=world["creator"]["token"])
        return await client.creators.analytics(**RANGE), await client.creators.analytics_csv(table="series_by_currency", **RANGE)

    figures, csv = asyncio.run(read())
    assert figures["totals"]["by_currency"] == sync["totals"]["by_currency"]
    assert figures["balances_outstanding_by_currency"] == sync["balances_outstanding_by_currency"]
    assert csv.startswith("period,currency,currency_address,decimals,gross")


def test_the_currencies_listings_are_priced_in(world: dict[str, Any]) -> None:
    token = world["token_listing"]
    anonymous = AgentRental(world["api_url"], retry_base_delay=0.01)
    listed = anonymous.listings.currencies()
    eth, *tokens = listed["currencies"]
    assert eth["symbol"] == "ETH" and eth["address"] is None and eth["decimals"] == 18 and eth["x402"] is False
    usdc = next(c for c in tokens if c["symbol"] == token["symbol"])
    assert usdc["address"] is not None and usdc["address"].lower() == token["address"].lower()
    assert usdc["decimals"] == 6 and usdc["x402"] is True and usdc["name"] and usdc["version"]

    async def read() -> Any:
        return await AsyncAgentRental(world["api_url"], retry_base_delay=0.01).listings.currencies()

    assert asyncio.run(read()) == listed

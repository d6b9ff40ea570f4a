"""A creator's analytics one currency at a time, and amounts written in their currency.

The API gives counts across every listing and amounts per currency in four places (each period's and the
totals' ``by_currency``, ``top_renters_by_currency``, ``balances_outstanding_by_currency`` and
``reconciliation["by_currency"]``), each amount in the currency's smallest unit as a decimal string.
:func:`analytics_by_currency` gathers them for each currency, ETH first; :func:`format_amount` writes an
amount in its currency ("0.25 USDC"). Amounts of two currencies are never added.
"""

from __future__ import annotations

from typing import Mapping, Optional, TypedDict, Union

from .models import (
    AnalyticsCurrency,
    AnalyticsCurrencyFigures,
    AnalyticsCurrencyFiguresRentals,
    AnalyticsCurrencyFiguresRevenue,
    AnalyticsCurrencyFiguresRevenueByModel,
    AnalyticsCurrencyFiguresRevenueByModelOneTime,
    AnalyticsCurrencyFiguresRevenueByModelPerQuery,
    AnalyticsCurrencyFiguresRevenueByModelSubscription,
    AnalyticsCurrencyFiguresRuns,
    CreatorAnalytics,
    CreatorAnalyticsListingsItem,
    CreatorAnalyticsReconciliationByCurrencyItem,
    CreatorAnalyticsTopRentersByCurrencyItemRentersItem,
)


def format_units(amount: Union[int, str], decimals: int) -> str:
    """``amount`` (a currency's smallest unit, an int or a decimal string) in whole units, exactly and
    without trailing zeros: ``format_units("250000", 6) == "0.25"``."""
    value = int(amount)
    digits = str(abs(value)).rjust(decimals + 1, "0")
    whole, fraction = (digits[: len(digits) - decimals], digits[len(digits) - decimals :].rstrip("0")) if decimals > 0 else (digits, "")
    return f"{'-' if value < 0 else ''}{whole}{'.' + fraction if fraction else ''}"


def format_amount(amount: Union[int, str], currency: Mapping[str, object]) -> str:
    """An amount in its currency (``{"symbol", "decimals", ...}``, as the API gives it), with the symbol:
    ``format_amount("475000", {"symbol": "USDC", "decimals": 6}) == "0.475 USDC"``."""
    decimals = currency["decimals"]
    if not isinstance(decimals, int):
        raise TypeError("currency['decimals'] must be an int")
    return f"{format_units(amount, decimals)} {currency['symbol']}"


class CurrencyPeriodFigures(AnalyticsCurrencyFigures):
    """One period's amounts in one currency."""

    period: str


class CurrencyAnalytics(TypedDict):
    """Every figure of the analytics in one currency (amounts in its smallest unit, as decimal strings)."""

    currency: AnalyticsCurrency
    listings: list[CreatorAnalyticsListingsItem]
    """The listings priced in it."""
    totals: AnalyticsCurrencyFigures
    """The range's amounts in it: revenue (by model, gross, fee, net, withdrawn, paid by x402), per_query
    deposits, refunds and balance change, what runs were charged."""
    series: list[CurrencyPeriodFigures]
    """Each period's amounts in it."""
    top_renters: list[CreatorAnalyticsTopRentersByCurrencyItemRentersItem]
    """The ten renters who spent most on its listings, all time (``spend`` in it)."""
    balances_outstanding: str
    """What renters hold in per_query balances of its listings now."""
    reconciliation: Optional[CreatorAnalyticsReconciliationByCurrencyItem]
    """Its escrow against its contract at ``reconciliation["block"]``: ``withdrawable``, ``vesting``,
    ``chain_escrow``, ``rollup_escrow``, ``matches``."""


def _key(currency: AnalyticsCurrency) -> str:
    address = currency["address"]
    return address.lower() if address is not None else "eth"


def _zero(currency: AnalyticsCurrency) -> AnalyticsCurrencyFigures:
    by_model = AnalyticsCurrencyFiguresRevenueByModel(
        one_time=AnalyticsCurrencyFiguresRevenueByModelOneTime(gross="0", fee="0", net="0"),
        subscription=AnalyticsCurrencyFiguresRevenueByModelSubscription(gross="0", fee="0", net="0"),
        per_query=AnalyticsCurrencyFiguresRevenueByModelPerQuery(gross="0", fee="0", net="0"),
    )
    return AnalyticsCurrencyFigures(
        currency=currency,
        revenue=AnalyticsCurrencyFiguresRevenue(by_model=by_model, gross="0", fee="0", net="0", withdrawn="0", paid_by_x402="0"),
        rentals=AnalyticsCurrencyFiguresRentals(deposits="0", refunds="0", balance_change="0"),
        runs=AnalyticsCurrencyFiguresRuns(charged="0"),
    )


def analytics_by_currency(analytics: CreatorAnalytics) -> list[CurrencyAnalytics]:
    """The analytics' amounts gathered per currency, ETH first, then as the API orders them (a currency
    appears when a listing is priced in it)."""
    currencies: dict[str, AnalyticsCurrency] = {}
    for group in (
        [f["currency"] for f in analytics["totals"]["by_currency"]],
        [item["currency"] for item in analytics["listings"]],
        [item["currency"] for item in analytics["balances_outstanding_by_currency"]],
        [item["currency"] for item in analytics["top_renters_by_currency"]],
        [item["currency"] for item in analytics["reconciliation"]["by_currency"]],
    ):
        for currency in group:
            currencies.setdefault(_key(currency), currency)
    ordered = sorted(currencies.items(), key=lambda entry: entry[0] != "eth")
    gathered: list[CurrencyAnalytics] = []
    for key, currency in ordered:
        totals = next((t for t in analytics["totals"]["by_currency"] if _key(t["currency"]) == key), None) or _zero(currency)
        series: list[CurrencyPeriodFigures] = []
        for period in analytics["series"]:
            f = next((p for p in period["by_currency"] if _key(p["currency"]) == key), None) or _zero(currency)
            series.append(CurrencyPeriodFigures(period=period["period"], currency=f["currency"], revenue=f["revenue"], rentals=f["rentals"], runs=f["runs"]))
        renters: list[CreatorAnalyticsTopRentersByCurrencyItemRentersItem] = next((t["renters"] for t in analytics["top_renters_by_currency"] if _key(t["currency"]) == key), [])
        balances = next((b["amount"] for b in analytics["balances_outstanding_by_currency"] if _key(b["currency"]) == key), "0")
        reconciliation = next((r for r in analytics["reconciliation"]["by_currency"] if _key(r["currency"]) == key), None)
        gathered.append(
            CurrencyAnalytics(
                currency=currency,
                listings=[item for item in analytics["listings"] if _key(item["currency"]) == key],
                totals=totals,
                series=series,
                top_renters=renters,
                balances_outstanding=balances,
                reconciliation=reconciliation,
            )
        )
    return gathered

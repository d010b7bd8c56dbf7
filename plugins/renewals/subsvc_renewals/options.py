"""Pricing a renewal (§2.2 renewal options): the subscription's tariff periods, else the
classic renewal periods; whether a subscription can be renewed at all."""

from __future__ import annotations

from datetime import datetime

import subsvc_pricing.api as pricing
import subsvc_subscriptions.api as subscriptions
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription, SubscriptionStatus

from subsvc.api import rubles
from subsvc_renewals.errors import RenewalError
from subsvc_renewals.schemas import RenewalOptionResponse
from subsvc_renewals.subject import tariff_of

CLASSIC_CANNOT_RENEW = "Classic subscriptions cannot be renewed. Please purchase a tariff."
PERIOD_NOT_AVAILABLE = "Selected renewal period is not available"
INVALID_PERIOD = "Invalid renewal period"
NOT_RENEWABLE = (SubscriptionStatus.DISABLED, SubscriptionStatus.PENDING)


def _classic_selection(subscription: Subscription) -> pricing.ClassicSelection:
    purchased = subscription.purchased_traffic_gb if subscription.traffic_limit_gb else 0
    return pricing.ClassicSelection(
        period_days=30,
        traffic_gb=max(0, subscription.traffic_limit_gb - purchased),
        squads=tuple(subscription.connected_squads),
        devices=subscription.device_limit,
        purchased_traffic_gb=purchased,
    )


async def _priced_tariff(
    app: Starlette, session: AsyncSession, subscription: Subscription
) -> pricing.TariffTerms | None:
    """The tariff the subscription renews on (active, with a period on sale), else ``None``
    (the classic renewal periods); 400 in tariffs mode for a subscription without a tariff."""
    tariff = await tariff_of(app, session, subscription.tariff_id)
    if tariff is None and pricing.sales_mode(app) == "tariffs":
        raise RenewalError(400, CLASSIC_CANNOT_RENEW)
    if tariff is not None and tariff.is_active and (tariff.is_daily or tariff.periods()):
        return tariff
    return None


def check_renewable(subscription: Subscription, now: datetime) -> None:
    """400 ``Cannot renew subscription with status: {status}`` (disabled, pending)."""
    status = subscriptions.actual_status(subscription.status, subscription.end_date, now)
    if status in NOT_RENEWABLE:
        raise RenewalError(400, f"Cannot renew subscription with status: {status}")


async def _classic_prices(
    app: Starlette, session: AsyncSession, b: pricing.Buyer, s: Subscription
) -> dict[str, int]:
    offers = await pricing.server_prices(session, b.promo_group_id, list(s.connected_squads))
    return {uuid: offer.price_kopeks for uuid, offer in offers.items()}


async def renewal_options(
    app: Starlette, session: AsyncSession, subscription: Subscription, b: pricing.Buyer, now: datetime
) -> list[RenewalOptionResponse]:
    """The periods the subscription can be renewed for at the buyer's price; none for a
    disabled or pending one, or a classic one in tariffs mode. Free periods are left out."""
    try:
        check_renewable(subscription, now)
        tariff = await _priced_tariff(app, session, subscription)
    except RenewalError:
        return []
    if tariff is not None:
        periods = pricing.tariff_periods(tariff, b, device_limit=subscription.device_limit)
    else:
        ct = pricing.classic_tables(app)
        prices = await _classic_prices(app, session, b, subscription)
        periods = pricing.classic_renewal_periods(ct, prices, b, _classic_selection(subscription))
    return [
        RenewalOptionResponse(
            period_days=p.days,
            price_kopeks=p.price_kopeks,
            price_rubles=rubles(p.price_kopeks),
            discount_percent=p.discount_percent,
            original_price_kopeks=p.original_price_kopeks,
        )
        for p in periods
        if p.price_kopeks or p.original_price_kopeks
    ]


async def renewal_quote(
    app: Starlette,
    session: AsyncSession,
    subscription: Subscription,
    b: pricing.Buyer,
    days: int,
    now: datetime,
) -> pricing.Quote:
    """The price of renewing the subscription for ``days`` (checked renewable): 400
    ``Selected renewal period is not available`` for a period not on sale, ``Invalid
    renewal period`` for one that is free."""
    check_renewable(subscription, now)
    tariff = await _priced_tariff(app, session, subscription)
    try:
        if tariff is not None:
            if tariff.is_daily and days != 1:
                raise RenewalError(400, PERIOD_NOT_AVAILABLE)
            quote = pricing.tariff_renewal(tariff, b, days=days, device_limit=subscription.device_limit)
        else:
            ct = pricing.classic_tables(app)
            prices = await _classic_prices(app, session, b, subscription)
            quote = pricing.classic_renewal(ct, prices, b, _classic_selection(subscription), days=days)
    except pricing.PricingError:
        raise RenewalError(400, PERIOD_NOT_AVAILABLE) from None
    if quote.final_kopeks == 0 and quote.original_kopeks == 0:
        raise RenewalError(400, INVALID_PERIOD)
    return quote

"""What every operation starts from: the subscription the request means, locked when it is
to change, and the tariff terms and buyer the engine prices with."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import subsvc_pricing.api as pricing
import subsvc_sales.api as sales
import subsvc_subscriptions.api as subscriptions
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription, SubscriptionSettings

from subsvc_renewals.errors import NO_SUBSCRIPTION, RenewalError

RENEWAL_RESTRICTED = "Subscription renewal is restricted for this account"
PURCHASES_RESTRICTED = "Subscription purchases are restricted for this account"


async def check_not_restricted(app: Starlette, session: AsyncSession, user_id: int, text: str) -> None:
    """403 ``text`` when an administrator restricted the user's subscription purchases (the
    sales plugin's ``check_not_restricted``, answered as a :class:`RenewalError`)."""
    try:
        await sales.check_not_restricted(app, session, user_id, text)
    except sales.SalesError as refused:
        raise RenewalError(refused.status, refused.detail) from None


async def subscription_of(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None,
    *,
    for_update: bool = False,
    now: datetime | None = None,
    missing: RenewalError | None = None,
) -> Subscription:
    """The user's subscription named by ``subscription_id``, else their current one
    (multi-tariff mode: the active one with the most time left); 404 ``No subscription
    found`` (or ``missing``) without one."""
    multi = SubscriptionSettings.of(app).MULTI_TARIFF_ENABLED
    found = await subscriptions.resolve(
        session, user_id, subscription_id, multi=multi, for_update=for_update, now=now
    )
    if found is None:
        raise missing or RenewalError(404, NO_SUBSCRIPTION)
    return found


async def tariff_of(
    app: Starlette, session: AsyncSession, tariff_id: int | None
) -> pricing.TariffTerms | None:
    """The terms of a tariff (active or not), ``None`` without one."""
    if tariff_id is None:
        return None
    found = await pricing.tariff_terms(app, session, [tariff_id], active_only=False)
    return found[0] if found else None


async def buyer(app: Starlette, session: AsyncSession, user_id: int) -> pricing.Buyer:
    """The user as the engine's buyer (the user exists: the JWT or the row says so)."""
    found = await pricing.buyer_of(app, session, user_id)
    if found is None:
        raise RenewalError(404, "User not found")
    return found


@dataclass(frozen=True)
class Priced:
    """A renewal period priced for a subscription."""

    days: int
    quote: pricing.Quote

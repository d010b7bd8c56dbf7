"""Renewing from the balance (§2.2 ``POST /renew``): priced by the engine, charged through
the sales kernel and extended through the subscriptions plugin in one transaction; when the
balance is short an ``extend`` cart is kept (committed) and the answer is 402. A saved cart
is renewed here too (``sales_complete_cart``), as are autopay's renewals."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import subsvc_pricing.api as pricing
import subsvc_sales.api as sales
import subsvc_subscriptions.api as subscriptions
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import PanelAction, Subscription

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_renewals.errors import RenewalError
from subsvc_renewals.options import renewal_quote
from subsvc_renewals.schemas import RenewalRequest, RenewalResponse, RenewalSource, SubscriptionRenewed
from subsvc_renewals.settings import RenewalsSettings
from subsvc_renewals.subject import RENEWAL_RESTRICTED, buyer, check_not_restricted, subscription_of

RENEWED = "Subscription renewed successfully"
RENEWED_EVENT = "subscription.renewed"
EXTEND: Literal["extend"] = "extend"


def description(days: int) -> str:
    """The renewal's transaction text."""
    return f"Продление подписки на {days} дней"


def panel_actions(app: Starlette, subscription: Subscription, now: datetime) -> list[PanelAction]:
    """The resets the panel sync makes after pushing a renewal: the used traffic of an expired
    subscription (``RESET_TRAFFIC_ON_PAYMENT``), the devices (``RESET_DEVICES_ON_RENEWAL``)."""
    settings = RenewalsSettings.of(app)
    status = subscriptions.actual_status(subscription.status, subscription.end_date, now)
    actions: list[PanelAction] = []
    if settings.RESET_TRAFFIC_ON_PAYMENT and status == subscriptions.SubscriptionStatus.EXPIRED:
        actions.append("reset_traffic")
    if settings.RESET_DEVICES_ON_RENEWAL:
        actions.append("reset_devices")
    return actions


async def charge_and_extend(
    app: Starlette,
    session: AsyncSession,
    subscription: Subscription,
    quote: pricing.Quote,
    days: int,
    *,
    now: datetime,
    source: RenewalSource,
) -> sales.Charged:
    """Charge the quote (raises :class:`subsvc_sales.api.InsufficientFunds`, nothing changed)
    and add ``days`` to the subscription, publishing ``subscription.renewed``; the caller
    commits both together."""
    charged = await sales.charge(app, session, subscription.user_id, quote, description=description(days))
    events = services(app).events
    actions = panel_actions(app, subscription, now)
    await subscriptions.extend(session, events, subscription, days, now=now, panel_actions=actions)
    publish_renewed(app, session, subscription, charged, source=source, days=days, now=now)
    return charged


def publish_renewed(
    app: Starlette,
    session: AsyncSession,
    subscription: Subscription,
    charged: sales.Charged,
    *,
    source: RenewalSource,
    days: int,
    now: datetime,
) -> None:
    """Publish ``subscription.renewed``: ``days`` added to the subscription, paid by ``charged``."""
    assert subscription.id is not None
    renewed = SubscriptionRenewed(
        subscription_id=subscription.id,
        user_id=subscription.user_id,
        source=source,
        days=days,
        amount_kopeks=charged.amount_kopeks,
        new_end_date=subscription.end_date,
        transaction_id=charged.transaction_id,
        occurred_at=now,
    )
    services(app).events.publish(session, RENEWED_EVENT, renewed)


def _answer(quote: pricing.Quote, charged: sales.Charged, subscription: Subscription) -> RenewalResponse:
    personal: dict[str, Any] = {}
    if quote.uses_personal:
        personal = {
            "promo_discount_percent": quote.personal_percent,
            "promo_discount_amount_kopeks": quote.personal_discount_kopeks,
            "original_price_kopeks": quote.original_kopeks,
        }
    return RenewalResponse(
        message=RENEWED,
        new_end_date=subscription.end_date,
        amount_paid_kopeks=charged.amount_kopeks,
        **personal,
    )


async def renew(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    body: RenewalRequest,
    subscription_id: int | None = None,
    *,
    now: datetime | None = None,
) -> RenewalResponse:
    """Renew the user's subscription for ``body.period_days`` from the balance. Short: the
    ``extend`` cart is saved and committed, then 402 ``insufficient_funds``; 403 when an
    administrator restricted the user's purchases."""
    now = now or utcnow()
    await check_not_restricted(app, session, user_id, RENEWAL_RESTRICTED)
    subscription = await subscription_of(
        app, session, user_id, body.subscription_id or subscription_id, for_update=True, now=now
    )
    quote = await renewal_quote(
        app, session, subscription, await buyer(app, session, user_id), body.period_days, now
    )
    try:
        charged = await charge_and_extend(
            app, session, subscription, quote, body.period_days, now=now, source="cabinet"
        )
    except sales.InsufficientFunds as short:
        payload = {"period_days": body.period_days}
        raise await sales.payment_required_with_cart(
            app, session, short, user_id, EXTEND, payload, subscription_id=subscription.id
        ) from None
    return _answer(quote, charged, subscription)


@hookimpl
async def sales_complete_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    mode: str,
    payload: dict[str, Any],
    subscription_id: int | None,
    *,
    now: datetime | None = None,
) -> bool | None:
    """(The sales plugin's hook.) Renew from a saved ``extend`` cart (re-priced now) in
    ``session``'s transaction: true when done, false when the balance is still short, the
    renewal no longer possible or the user's purchases restricted; ``None`` for the other
    modes."""
    if mode != EXTEND:
        return None
    now = now or utcnow()
    days = payload.get("period_days")
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 3650:
        return False
    try:
        await check_not_restricted(app, session, user_id, RENEWAL_RESTRICTED)
        subscription = await subscription_of(app, session, user_id, subscription_id, for_update=True, now=now)
        quote = await renewal_quote(app, session, subscription, await buyer(app, session, user_id), days, now)
    except RenewalError:
        return False
    try:
        async with session.begin_nested():  # a refused change takes its debit back with it
            await charge_and_extend(app, session, subscription, quote, days, now=now, source="cart")
    except (sales.InsufficientFunds, sales.PriceChanged, subscriptions.RuleViolation):
        return False
    return True

"""``POST /tariff/switch`` (§2.2, §2.3), better than the reference (§9): in one transaction
the switch is charged (a 0-kopek ``subscription_payment`` for a free one), the extra devices
bought on the old tariff are carried up to the new tariff's cap and the ones that do not fit
are refunded (a ``refund`` transaction), purchased traffic still counting is kept on top of
a limited new tariff, and the subscription takes the new terms."""

from __future__ import annotations

from datetime import datetime

import subsvc_billing.api as billing
import subsvc_sales.api as sales
import subsvc_subscriptions.api as subscriptions
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_cabinet.api import subscription_views

from subsvc.api import price_label
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_renewals.errors import RenewalError
from subsvc_renewals.schemas import SwitchResult, TariffSwitchRequest
from subsvc_renewals.subject import PURCHASES_RESTRICTED, check_not_restricted
from subsvc_renewals.switch_quote import Switch, discount_fields, priced_switch

DUPLICATE = "You already have an active subscription for the target tariff"
DAILY_INVALID = "Daily tariff has invalid price"
REFUND = "refund"


async def switch_tariff(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    body: TariffSwitchRequest,
    subscription_id: int | None = None,
    *,
    now: datetime | None = None,
) -> SwitchResult:
    """Switch the user's subscription to ``body.tariff_id`` now (the checks and price of the
    preview; 402 ``insufficient_funds`` when short, nothing changed; 403 when an administrator
    restricted the user's purchases)."""
    now = now or utcnow()
    await check_not_restricted(app, session, user_id, PURCHASES_RESTRICTED)
    switch = await priced_switch(app, session, user_id, body, subscription_id, now=now, for_update=True)
    new, quote = switch.new, switch.quote
    if new.is_daily and new.daily_price_kopeks <= 0:
        raise RenewalError(400, DAILY_INVALID)
    try:
        charged = await sales.charge(
            app, session, user_id, quote.quote, description=f"Переход на тариф {new.name}", record_free=True
        )
    except sales.InsufficientFunds as short:
        message = f"Insufficient funds. Missing {price_label(short.missing_kopeks)}"
        raise sales.payment_required(short, message=message) from None
    balance = charged.balance_kopeks
    if quote.refund_kopeks > 0:
        balance = await _refund_devices(app, session, switch)
    await _take_new_terms(app, session, switch, now)
    subscription = switch.subscription
    values = subscription.model_dump()
    values["actual_status"] = subscriptions.actual_status(subscription.status, subscription.end_date, now)
    (view,) = await subscription_views(app, session, [values])
    return SwitchResult(
        success=True,
        message=f"Switched from '{switch.current.name}' to '{new.name}'",
        subscription=view,
        old_tariff_name=switch.current.name,
        new_tariff_id=new.id,
        new_tariff_name=new.name,
        charged_kopeks=charged.amount_kopeks,
        balance_kopeks=balance,
        balance_label=price_label(balance),
        devices_carried=quote.devices_carried,
        devices_dropped=quote.devices_dropped,
        refund_kopeks=quote.refund_kopeks,
        **{k: v for k, v in discount_fields(quote).items() if k != "base_upgrade_cost_kopeks"},
    )


async def _refund_devices(app: Starlette, session: AsyncSession, switch: Switch) -> int:
    """Credit what the dropped devices are worth (a ``refund`` transaction); the balance."""
    user_id = switch.subscription.user_id
    amount, dropped = switch.quote.refund_kopeks, switch.quote.devices_dropped
    _, balance = await billing.move_balance(
        session,
        services(app).events,
        user_id,
        amount,
        type=REFUND,
        description=f"Возврат за устройства ({dropped}) при переходе на тариф {switch.new.name}",
        payment_method="balance",
    )
    return balance


async def _take_new_terms(app: Starlette, session: AsyncSession, switch: Switch, now: datetime) -> None:
    new, quote, subscription = switch.new, switch.quote, switch.subscription
    shortest = new.shortest()
    terms = subscriptions.Terms(
        tariff_id=new.id,
        days=0,
        traffic_limit_gb=new.traffic_limit_gb,
        device_limit=quote.device_limit,
        squads=list(new.allowed_squads) or list(subscription.connected_squads),
        is_daily=new.is_daily,
        autopay_period_days=None if new.is_daily or shortest is None else shortest[0],
    )
    try:
        await subscriptions.switch_tariff(
            session,
            services(app).events,
            subscription,
            terms,
            end=quote.new_end or subscription.end_date,
            now=now,
            keep_purchased_traffic=True,
        )
    except subscriptions.DuplicateTariff:
        raise RenewalError(409, DUPLICATE) from None

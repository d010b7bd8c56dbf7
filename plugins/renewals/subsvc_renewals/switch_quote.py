"""A tariff switch checked and priced (§2.2 ``/tariff/switch/preview``, §2.3): the engine's
:class:`~subsvc_pricing.api.SwitchQuote`, never a price worked out here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import subsvc_pricing.api as pricing
import subsvc_sales.api as sales
import subsvc_subscriptions.api as subscriptions
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription, SubscriptionStatus

from subsvc.api import price_label
from subsvc.db import utcnow
from subsvc_renewals.errors import RenewalError, coded
from subsvc_renewals.schemas import SwitchPreview, TariffSwitchRequest
from subsvc_renewals.settings import RenewalsSettings
from subsvc_renewals.subject import buyer, subscription_of, tariff_of

NOT_TARIFFS_MODE = "Tariffs mode is not enabled"
NO_TARIFF_SUBSCRIPTION = "No active subscription with tariff"
EXPIRED = "Your subscription has expired. Please purchase a tariff instead."
TRIAL = "Trial subscriptions cannot switch tariffs. Please purchase a tariff."
NOT_ACTIVE = "Your subscription is not active"
FREE_TARIFF = "Switching from a free tariff is not available. Please purchase a tariff."
TARIFF_NOT_FOUND = "Tariff not found or inactive"
SAME_TARIFF = "Already on this tariff"
NOT_FOR_GROUP = "Tariff not available for your promo group"
NOT_AVAILABLE = "Tariff not available"
UPGRADE_DISABLED = "Повышение тарифа недоступно"
DOWNGRADE_DISABLED = "Понижение тарифа недоступно"
FREE = "Бесплатно"


@dataclass(frozen=True)
class Switch:
    """A switch the rules allow, priced: the subscription (locked when it is to change), its
    tariff and the target's terms, the buyer and the engine's quote."""

    subscription: Subscription
    current: pricing.TariffTerms
    new: pricing.TariffTerms
    buyer: pricing.Buyer
    quote: pricing.SwitchQuote


def is_free(tariff: pricing.TariffTerms) -> bool:
    """A tariff that costs nothing: a daily one without a daily price, else one whose enabled
    periods are all free."""
    if tariff.is_daily:
        return tariff.daily_price_kopeks <= 0
    prices = [tariff.period_prices[days] for days in tariff.periods()]
    return bool(prices) and all(price == 0 for price in prices)


async def priced_switch(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    body: TariffSwitchRequest,
    subscription_id: int | None,
    *,
    now: datetime,
    for_update: bool = False,
) -> Switch:
    """Check the switch with the reference's refusals, in its order, and price it."""
    if pricing.sales_mode(app) != "tariffs":
        raise RenewalError(400, NOT_TARIFFS_MODE)
    missing = RenewalError(400, NO_TARIFF_SUBSCRIPTION)
    subscription = await subscription_of(
        app,
        session,
        user_id,
        body.subscription_id or subscription_id,
        for_update=for_update,
        now=now,
        missing=missing,
    )
    current = await tariff_of(app, session, subscription.tariff_id)
    if current is None:
        raise missing
    status = subscriptions.actual_status(subscription.status, subscription.end_date, now)
    if status == SubscriptionStatus.EXPIRED:
        raise coded(400, "subscription_expired", EXPIRED, use_purchase_flow=True)
    if subscription.is_trial or status == SubscriptionStatus.TRIAL:
        raise coded(400, "trial_cannot_switch", TRIAL, use_purchase_flow=True)
    if status != SubscriptionStatus.ACTIVE:
        raise coded(400, "subscription_not_active", NOT_ACTIVE)
    new = await tariff_of(app, session, body.tariff_id)
    if new is None or not new.is_active:
        raise RenewalError(404, TARIFF_NOT_FOUND)
    if new.id == current.id:
        raise RenewalError(400, SAME_TARIFF)
    settings = RenewalsSettings.of(app)
    if settings.TARIFF_SWITCH_RESET_FREE_DAYS and is_free(current):
        raise coded(400, "free_tariff_cannot_switch", FREE_TARIFF, use_purchase_flow=True)
    b = await buyer(app, session, user_id)
    if not new.open_to(b.promo_group_id):
        raise RenewalError(403, NOT_AVAILABLE if for_update else NOT_FOR_GROUP)
    quote = pricing.tariff_switch(
        current, new, b, end=subscription.end_date, now=now, device_limit=subscription.device_limit
    )
    sold = sales.SalesSettings.of(app)
    if quote.is_upgrade and not sold.TARIFF_SWITCH_UPGRADE_ENABLED:
        raise RenewalError(403, UPGRADE_DISABLED)
    if not quote.is_upgrade and not sold.TARIFF_SWITCH_DOWNGRADE_ENABLED:
        raise RenewalError(403, DOWNGRADE_DISABLED)
    return Switch(subscription, current, new, b, quote)


def discount_fields(quote: pricing.SwitchQuote) -> dict[str, int]:
    """The reference's discount fields, when the switch's price took a discount."""
    final = quote.quote.final_kopeks
    if quote.base_cost_kopeks <= final:
        return {}
    return {
        "discount_percent": quote.quote.discount_percent,
        "discount_kopeks": quote.base_cost_kopeks - final,
        "base_upgrade_cost_kopeks": quote.base_cost_kopeks,
    }


async def preview_tariff_switch(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    body: TariffSwitchRequest,
    subscription_id: int | None = None,
    *,
    now: datetime | None = None,
) -> SwitchPreview:
    """What switching to ``body.tariff_id`` would cost now and do to the extra devices."""
    switch = await priced_switch(app, session, user_id, body, subscription_id, now=now or utcnow())
    quote, balance = switch.quote, switch.buyer.balance_kopeks
    cost = quote.quote.final_kopeks
    missing = max(0, cost - balance)
    return SwitchPreview(
        can_switch=missing == 0,
        current_tariff_id=switch.current.id,
        current_tariff_name=switch.current.name,
        new_tariff_id=switch.new.id,
        new_tariff_name=switch.new.name,
        remaining_days=quote.remaining_days,
        upgrade_cost_kopeks=cost,
        upgrade_cost_label=price_label(cost) if cost else FREE,
        balance_kopeks=balance,
        balance_label=price_label(balance),
        has_enough_balance=missing == 0,
        missing_amount_kopeks=missing,
        missing_amount_label=price_label(missing),
        is_upgrade=quote.is_upgrade,
        new_device_limit=quote.device_limit,
        devices_carried=quote.devices_carried,
        devices_dropped=quote.devices_dropped,
        refund_kopeks=quote.refund_kopeks,
        **discount_fields(quote),
    )

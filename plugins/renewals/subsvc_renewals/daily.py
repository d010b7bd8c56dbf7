"""Daily tariffs (§2.2 ``POST /pause``): pausing and resuming the daily charge; a
subscription the system disabled (short balance, ended) is resumed by paying one day (the
group's discount, no personal one) from the balance."""

from __future__ import annotations

from datetime import datetime

import subsvc_pricing.api as pricing
import subsvc_sales.api as sales
import subsvc_subscriptions.api as subscriptions
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import SubscriptionStatus

from subsvc.api import price_label
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_renewals.errors import RenewalError, coded
from subsvc_renewals.renewing import publish_renewed
from subsvc_renewals.schemas import PauseResponse
from subsvc_renewals.subject import buyer, subscription_of, tariff_of

NO_TARIFF = "Subscription has no tariff"
NOT_DAILY = "Pause is only available for daily tariffs"
SHORT = "Insufficient balance to resume daily subscription"
PAUSED = "Daily subscription paused"
RESUMED = "Daily subscription resumed"


def daily_description() -> str:
    """The daily charge's transaction text."""
    return "Оплата суточного тарифа"


async def toggle_pause(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None = None,
    *,
    now: datetime | None = None,
) -> PauseResponse:
    """Pause the daily charge, or resume it: an active subscription just resumes; one that is
    not live (disabled for a short balance, expired, limited) pays a day first (402
    ``insufficient_balance`` when short) and is active for a day from ``now``."""
    now = now or utcnow()
    subscription = await subscription_of(app, session, user_id, subscription_id, for_update=True, now=now)
    tariff = await tariff_of(app, session, subscription.tariff_id)
    if tariff is None:
        raise RenewalError(400, NO_TARIFF)
    if not tariff.is_daily:
        raise RenewalError(400, NOT_DAILY)
    status = subscriptions.actual_status(subscription.status, subscription.end_date, now)
    b = await buyer(app, session, user_id)
    balance = b.balance_kopeks
    if status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIAL):
        paused = not subscription.is_daily_paused
        await subscriptions.set_daily_state(session, subscription, paused=paused)
    else:
        quote = pricing.daily_charge(tariff, b, personal=False)
        try:
            charged = await sales.charge(app, session, user_id, quote, description=daily_description())
        except sales.InsufficientFunds as short:
            raise coded(
                402,
                "insufficient_balance",
                SHORT,
                required=short.required_kopeks,
                balance=short.balance_kopeks,
            ) from None
        await _resume_for_a_day(app, session, subscription, now)
        publish_renewed(app, session, subscription, charged, source="resume", days=1, now=now)
        balance, paused = charged.balance_kopeks, False
    return PauseResponse(
        success=True,
        message=PAUSED if paused else RESUMED,
        is_paused=paused,
        balance_kopeks=balance,
        balance_label=price_label(balance),
    )


async def _resume_for_a_day(
    app: Starlette, session: AsyncSession, subscription: subscriptions.Subscription, now: datetime
) -> None:
    """Active again, a day from ``now`` (from its end while that is still ahead), the charge
    recorded now and not paused."""
    await subscriptions.extend(session, services(app).events, subscription, 1, now=now)
    await subscriptions.set_daily_state(session, subscription, paused=False, last_charge_at=now)

"""``PATCH /autopay``: switching autopay (§2.2). Autopay itself is a job
(:mod:`subsvc_renewals.jobs`)."""

from __future__ import annotations

import subsvc_pricing.api as pricing
import subsvc_subscriptions.api as subscriptions
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_renewals.errors import RenewalError
from subsvc_renewals.schemas import AutopayResponse, AutopayUpdateRequest
from subsvc_renewals.subject import subscription_of, tariff_of

CLASSIC = "Autopay is not available for classic subscriptions. Please purchase a tariff."
TRIAL = "Autopay is not available for trial subscriptions"
DAILY = "Autopay is not available for daily subscriptions"
UPDATED = "Autopay settings updated"


async def update_autopay(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    body: AutopayUpdateRequest,
    subscription_id: int | None = None,
) -> AutopayResponse:
    """Switch the subscription's autopay (and the days before its end it renews). Enabling
    is refused for a classic subscription in tariffs mode, a trial and a daily tariff."""
    subscription = await subscription_of(app, session, user_id, subscription_id, for_update=True)
    if body.enabled:
        tariff = await tariff_of(app, session, subscription.tariff_id)
        if tariff is None and pricing.sales_mode(app) == "tariffs":
            raise RenewalError(400, CLASSIC)
        if subscription.is_trial:
            raise RenewalError(400, TRIAL)
        if subscription.last_daily_charge_at is not None or (tariff is not None and tariff.is_daily):
            raise RenewalError(400, DAILY)
    await subscriptions.set_autopay(session, subscription, body.enabled, days_before=body.days_before)
    return AutopayResponse(
        message=UPDATED,
        autopay_enabled=subscription.autopay_enabled,
        autopay_days_before=subscription.autopay_days_before,
    )

"""``/miniapp/subscription`` (the dashboard, text-style refusals) and
``/miniapp/subscription/autopay`` (object style)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import set_autopay
from subsvc_tariffs.api import find_tariff

from subsvc.api import HTTPError, Router
from subsvc_miniapp import auth, dashboard
from subsvc_miniapp.dashboard_schemas import (
    MiniAppSubscriptionAutopayRequest,
    MiniAppSubscriptionAutopayResponse,
    MiniAppSubscriptionResponse,
)
from subsvc_miniapp.schemas import MiniAppSubscriptionRequest

router = Router(area="web", tag="miniapp")
NOT_FOUND = {"code": "subscription_not_found", "message": "Subscription not found"}
TRIAL = {
    "code": "autopay_not_available_for_trial",
    "message": "Autopay is not available for trial subscriptions",
}
DAILY = {
    "code": "autopay_not_available_for_daily",
    "message": "Autopay is not available for daily subscriptions",
}
NO_DAYS = {"code": "autopay_no_days", "message": "Autopay days must be between 1 and 30"}
AUTOPAY_DAYS = range(1, 31)


@router.post("/miniapp/subscription", public=True, responses=auth.USER_RESPONSES)
async def get_subscription_details(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionRequest
) -> MiniAppSubscriptionResponse:
    """The mini app's main screen: the user, balance, recent transactions and the subscription
    the cabinet shows (with its traffic packages and autopay); without one,
    `subscription_missing`. Parts the project does not have yet are empty or null."""
    user = await auth.user_of(request.app, session, body.initData, "text")
    return await dashboard.dashboard(request.app, session, user)


@router.post(
    "/miniapp/subscription/autopay",
    public=True,
    responses={
        **auth.USER_RESPONSES,
        404: "`{code: subscription_not_found}`, or `user_not_found`",
        400: "`{code, message}`: `autopay_not_available_for_trial`, `autopay_not_available_for_daily`, "
        "`autopay_no_days` (days before outside 1..30), or the init data's `invalid_user`",
    },
)
async def update_subscription_autopay(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionAutopayRequest
) -> MiniAppSubscriptionAutopayResponse:
    """Switch the subscription's autopay (renewal from the balance `daysBefore` days before
    its end) and set those days; not for trials nor daily tariffs."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    subscription = await dashboard.current_subscription(request.app, session, user.id, body.subscriptionId)
    if subscription is None:
        raise HTTPError(404, NOT_FOUND)
    if body.daysBefore is not None and body.daysBefore not in AUTOPAY_DAYS:
        raise HTTPError(400, NO_DAYS)
    enabled = subscription.autopay_enabled if body.enabled is None else body.enabled
    if enabled and not subscription.autopay_enabled:
        if subscription.is_trial:
            raise HTTPError(400, TRIAL)
        tariff = await find_tariff(session, subscription.tariff_id) if subscription.tariff_id else None
        if tariff is not None and tariff.is_daily:
            raise HTTPError(400, DAILY)
    await set_autopay(session, subscription, enabled, days_before=body.daysBefore)
    autopay = dashboard.autopay_of(subscription)
    return MiniAppSubscriptionAutopayResponse(
        subscriptionId=subscription.id,
        autopay_enabled=subscription.autopay_enabled,
        autopay_days_before=subscription.autopay_days_before,
        autopay_days_options=dashboard.AUTOPAY_DAYS_OPTIONS,
        autopay=autopay,
        autopay_settings=autopay,
    )

"""``/miniapp/subscription`` (the dashboard, text-style refusals) and
``/miniapp/subscription/autopay`` (the renewals plugin's autopay, object style)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_renewals.api import AutopayUpdateRequest, RenewalError, update_autopay

from subsvc.api import HTTPError, Router
from subsvc_miniapp import auth, dashboard
from subsvc_miniapp.dashboard_schemas import (
    MiniAppSubscriptionAutopayRequest,
    MiniAppSubscriptionAutopayResponse,
    MiniAppSubscriptionResponse,
)
from subsvc_miniapp.refusals import as_object
from subsvc_miniapp.schemas import MiniAppSubscriptionRequest

router = Router(area="web", tag="miniapp")
NOT_FOUND = {"code": "subscription_not_found", "message": "Subscription not found"}
NO_DAYS = {"code": "autopay_no_days", "message": "Autopay days must be between 1 and 30"}
AUTOPAY_DAYS = range(1, 31)
#: the renewals plugin's autopay refusals' codes, by their text
AUTOPAY_CODES = {
    "Autopay is not available for classic subscriptions. Please purchase a tariff.": "autopay_not_available",
    "Autopay is not available for trial subscriptions": "autopay_not_available_for_trial",
    "Autopay is not available for daily subscriptions": "autopay_not_available_for_daily",
}


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
    its end) and set those days, as the cabinet does (renewals' `update_autopay`): not for
    classic subscriptions in tariffs mode, trials nor daily tariffs."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    subscription = await dashboard.current_subscription(request.app, session, user.id, body.subscriptionId)
    if subscription is None:
        raise HTTPError(404, NOT_FOUND)
    if body.daysBefore is not None and body.daysBefore not in AUTOPAY_DAYS:
        raise HTTPError(400, NO_DAYS)
    enabled = subscription.autopay_enabled if body.enabled is None else body.enabled
    wanted = AutopayUpdateRequest(enabled=enabled, days_before=body.daysBefore)
    try:
        await update_autopay(request.app, session, user.id, wanted, subscription.id)
    except RenewalError as refused:
        if isinstance(refused.detail, str) and refused.detail in AUTOPAY_CODES:
            raise HTTPError(
                refused.status, {"code": AUTOPAY_CODES[refused.detail], "message": refused.detail}
            ) from None
        raise as_object(refused.status, refused.detail) from None
    await session.refresh(subscription)
    autopay = dashboard.autopay_of(subscription)
    return MiniAppSubscriptionAutopayResponse(
        subscriptionId=subscription.id,
        autopay_enabled=subscription.autopay_enabled,
        autopay_days_before=subscription.autopay_days_before,
        autopay_days_options=dashboard.AUTOPAY_DAYS_OPTIONS,
        autopay=autopay,
        autopay_settings=autopay,
    )

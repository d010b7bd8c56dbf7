"""`POST /cabinet/admin/users/{user_id}/subscription`: change the user's subscription
(permission ``users:subscription``)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc_cabinet_admin_users import subscription_actions as actions
from subsvc_cabinet_admin_users.detail import subscription_info
from subsvc_cabinet_admin_users.routes.common import SUBSCRIPTION, get_user, new_router
from subsvc_cabinet_admin_users.schemas import UpdateSubscriptionRequest, UpdateSubscriptionResponse

router = new_router()


@router.post(
    "/{user_id}/subscription",
    permission=SUBSCRIPTION,
    responses={
        400: "Unknown action, a missing parameter, or refused by the subscription rules",
        404: "User not found, User has no subscription, Subscription not found (not one of the user's), "
        "Tariff not found, Traffic purchase not found",
    },
)
async def update_user_subscription(
    request: Request, session: AsyncSession, user_id: int, payload: UpdateSubscriptionRequest
) -> UpdateSubscriptionResponse:
    """Update the user's current subscription, or the one of theirs `subscription_id` names
    (404 `Subscription not found` when it is not theirs). Actions:

    - **create** (`days`, default 30; `is_trial`, `traffic_limit_gb`, `device_limit`): a new
      subscription; 400 when the user has one
    - **extend** / **shorten** (`days`); **set_end_date** (`end_date`; future: active, past: expired)
    - **set_traffic** (`traffic_limit_gb` and/or `traffic_used_gb`); **add_traffic** (`traffic_gb`);
      **remove_traffic** (`traffic_purchase_id`); **set_device_limit** (`device_limit`)
    - **toggle_autopay** (`autopay_enabled`); **cancel** (expired now); **activate** (active; an
      ended subscription gets 30 days)
    - **change_tariff** (`tariff_id`): 404 until a tariffs plugin keeps tariffs

    Every change except autopay publishes `subscription.changed` for the panel integration.
    """
    user = await get_user(session, user_id, for_update=True)
    try:
        outcome = await actions.run(request.app, session, user, payload)
    except actions.ActionRefused as exc:
        raise HTTPError(400, str(exc)) from None
    except actions.ActionNotFound as exc:
        raise HTTPError(404, str(exc)) from None
    return UpdateSubscriptionResponse(
        success=True,
        message=outcome.message,
        subscription=await subscription_info(request.app, session, outcome.subscription),
    )

"""What the user did: the activity timeline, and the panel's subscription request history
(permission ``users:read``)."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc.panel import failures_as_502
from subsvc_cabinet_admin_users import activity, sync
from subsvc_cabinet_admin_users.panel import GATEWAY
from subsvc_cabinet_admin_users.routes.common import READ, USER_NOT_FOUND, get_user, new_router
from subsvc_cabinet_admin_users.routes.panel import SUBSCRIPTION_NOT_FOUND, SubscriptionId, named_subscription
from subsvc_cabinet_admin_users.schemas import (
    SubscriptionRequestHistoryResponse,
    SubscriptionRequestItem,
    UserActivityResponse,
)

router = new_router()

MAX_OFFSET = 100_000


@router.get("/{user_id}/activity", permission=READ, responses={404: USER_NOT_FOUND})
async def get_user_activity(
    session: AsyncSession,
    user_id: int,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    types: Annotated[
        str | None,
        Query(max_length=255, description="Types to show, separated by commas (see UserActivityItem.type)"),
    ] = None,
) -> UserActivityResponse:
    """The user's timeline, newest first: `transaction` (subtype: its type), `event`
    (`subscription_created`), `message` (administrators' messages; subtype: delivery status)
    and `cabinet_login` (the last one). Unknown types in `types` match nothing."""
    user = await get_user(session, user_id)
    chosen_types = {part.strip() for part in types.split(",") if part.strip()} if types else None
    page = await activity.timeline(session, user, chosen_types, offset, limit)
    return UserActivityResponse(items=page.items, total=page.total, offset=offset, limit=limit)


@router.get(
    "/{user_id}/subscription-request-history",
    permission=READ,
    responses={404: f"{USER_NOT_FOUND}; {SUBSCRIPTION_NOT_FOUND} (not one of the user's)", **PANEL_RESPONSES},
)
async def get_subscription_request_history(
    request: Request,
    session: AsyncSession,
    user_id: int,
    subscription_id: SubscriptionId = None,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> SubscriptionRequestHistoryResponse:
    """The panel's log of the user's subscription-link requests, newest first, paged here
    (the panel answers its recent records at once). The panel keeps one account per user:
    `subscription_id` must be one of the user's (404) and names that same account. A user
    without a panel account has none; 503 without a panel, 502 when it fails."""
    user = await get_user(session, user_id)
    await named_subscription(session, user, subscription_id)
    gateway = await GATEWAY.require(request.app)
    with failures_as_502():
        account = await sync.find_account(gateway, session, user)
        found = await gateway.request_history(account.uuid) if account else []
    items = [SubscriptionRequestItem(**vars(record)) for record in found]
    return SubscriptionRequestHistoryResponse(
        items=items[offset : offset + limit], total=len(items), offset=offset, limit=limit
    )

"""`/users` (Web API, tag `users`): the list, creation, lookups and changes of users.

The tag's other operations belong to the plugins that own their rules: the balance
(billing) and a user's subscription (subscriptions).
"""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import INT32_MAX, BigInt, HTTPError, Limit, Offset, Query, Router
from subsvc_users import service
from subsvc_users.counts import count_cache
from subsvc_users.records import (
    find_user_by_messenger_id,
    get_user,
    record_columns,
    records_from_rows,
    user_record,
)
from subsvc_users.schemas import (
    UserCreateRequest,
    UserListResponse,
    UserResponse,
    UserStatus,
    UserUpdateRequest,
)

router = Router(area="web", tag="users")

READ, EDIT = "users:read", "users:edit"
CREATE_REFUSED = {
    400: "; ".join(
        (
            service.DUPLICATE_MESSENGER_ID,
            service.PROMO_GROUP_NOT_FOUND,
            service.REFERRER_NOT_FOUND,
            service.REFERRAL_CODE_IN_USE,
        )
    )
}
UPDATE_REFUSED = {
    400: "; ".join((service.INVALID_STATUS, service.PROMO_GROUP_NOT_FOUND, service.REFERRAL_CODE_IN_USE))
}

Search = Annotated[
    str | None,
    Query(
        max_length=255,
        description="Part of the username, first name, last name or referral code (any case); "
        "all digits also match a messenger id or an internal id exactly.",
    ),
]
PageNumber = Annotated[int | None, Query(ge=1, le=10_000_000, description="Page number (wins over offset).")]
PerPage = Annotated[int | None, Query(ge=1, le=200, description="Page size (wins over limit).")]
PromoGroupId = Annotated[int | None, Query(ge=1, le=INT32_MAX)]


@router.get("/users", permission=READ)
async def list_users(
    request: Request,
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    status: UserStatus | None = None,
    promo_group_id: PromoGroupId = None,
    search: Search = None,
    page: PageNumber = None,
    per_page: PerPage = None,
) -> UserListResponse:
    """Users, newest first, with the exact total of the filter. ``page``/``per_page`` may be
    used instead of ``offset``/``limit``; the envelope reports the window as limit/offset."""
    if per_page is not None:
        limit = per_page
    if page is not None:
        offset = (page - 1) * limit
    total, users = await service.list_users(
        session,
        count_cache(request.app),
        status=status.value if status is not None else None,
        promo_group_id=promo_group_id,
        search=search,
        limit=limit,
        offset=offset,
        columns=record_columns(request.app, session),
    )
    items = await records_from_rows(request, session, users)
    return UserListResponse(items=items, total=total, limit=limit, offset=offset)


@router.post("/users", status_code=201, permission=EDIT, responses=CREATE_REFUSED)
async def create_user_endpoint(
    request: Request, session: AsyncSession, payload: UserCreateRequest
) -> UserResponse:
    """Add a user with a generated referral code, in the given promo group or the default one;
    publishes ``user.created``."""
    try:
        user = await service.create_user(request.app, session, payload)
    except service.UserRuleError as exc:
        raise HTTPError(400, str(exc)) from None
    return await user_record(request, session, user)


@router.get("/users/by-messenger-id/{messenger_id}", permission=READ)
async def get_user_by_messenger_id_endpoint(
    request: Request, session: AsyncSession, messenger_id: BigInt
) -> UserResponse:
    """Get user by messenger ID"""
    user = await find_user_by_messenger_id(session, messenger_id)
    if user is None:
        raise HTTPError(404, "User not found")
    return await user_record(request, session, user)


@router.get("/users/{user_id}", summary="Get User", permission=READ)
async def get_user_endpoint(request: Request, session: AsyncSession, user_id: BigInt) -> UserResponse:
    """A user by messenger id, or else by internal id."""
    return await user_record(request, session, await get_user(session, user_id))


@router.patch("/users/{user_id}", permission=EDIT, responses=UPDATE_REFUSED)
async def update_user_endpoint(
    request: Request, session: AsyncSession, user_id: BigInt, payload: UserUpdateRequest
) -> UserResponse:
    """Change the given fields of a user (by messenger id, or else internal id); null or absent
    fields stay as they are."""
    user = await get_user(session, user_id)
    try:
        user = await service.update_user(request.app, session, user, payload)
    except service.UserRuleError as exc:
        raise HTTPError(400, str(exc)) from None
    return await user_record(request, session, user)

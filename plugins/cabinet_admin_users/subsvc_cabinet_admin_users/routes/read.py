"""Reading users: the list, statistics, a user's detail, referrals, transactions, tariffs
and gifts (permission ``users:read``)."""

from __future__ import annotations

from typing import Annotated, Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_promo_groups.api import find_group
from subsvc_users.api import User, UserStatus, find_user_by_messenger_id

from subsvc.api import INT32_MAX, BigInt, HTTPError, Limit, Offset, Query
from subsvc.services import services
from subsvc_cabinet_admin_users import detail, listing, stats
from subsvc_cabinet_admin_users.lookup import current_subscription, fits_row_id
from subsvc_cabinet_admin_users.routes.common import READ, USER_NOT_FOUND, get_user, new_router, settings
from subsvc_cabinet_admin_users.schemas import (
    AdminUserGiftsResponse,
    SortBy,
    UserAvailableTariffItem,
    UserAvailableTariffsResponse,
    UserDetailResponse,
    UsersListResponse,
    UsersStatsResponse,
    UserTransactionsResponse,
)

router = new_router()

Text255 = Annotated[str | None, Query(max_length=255)]
BAD_TARIFF_ID = "tariff_id must be tariff ids separated by commas"


async def _hook(request: Request, name: str, **kwargs: Any) -> Any:
    """The first answer of one of this plugin's ``firstresult`` hooks (awaited), or ``None``."""
    return await services(request.app).plugins.first_result(name, **kwargs)


async def _users_page(
    request: Request,
    session: AsyncSession,
    filters: listing.ListFilter,
    sort_by: SortBy,
    offset: int,
    limit: int,
) -> UsersListResponse:
    """One page of the users list."""
    total, rows = await listing.list_users(request.app, session, filters, sort_by, limit, offset)
    items = await listing.list_items(request.app, session, rows)
    return UsersListResponse(users=items, total=total, offset=offset, limit=limit)


async def _detail(request: Request, session: AsyncSession, user: User) -> UserDetailResponse:
    """The user's detail with as many recent transactions as the settings say."""
    return await detail.user_detail(
        request.app, session, user, settings(request).ADMIN_USER_RECENT_TRANSACTIONS
    )


def _tariff_ids(value: str | None) -> tuple[int, ...]:
    """The ids of ``tariff_id`` (one, or several separated by commas); 400 when one is not a
    tariff id."""
    parts = [part.strip() for part in (value or "").split(",") if part.strip()]
    if not all(part.isdigit() and fits_row_id(int(part)) for part in parts):
        raise HTTPError(400, BAD_TARIFF_ID)
    return tuple(sorted({int(part) for part in parts}))


async def _attributed(
    request: Request, session: AsyncSession, campaign_id: int | None, partner_id: int | None
) -> tuple[Any, ...]:
    """The statements of the plugins that know who a campaign or partner brought (none yet)."""
    if campaign_id is None and partner_id is None:
        return ()
    found = await services(request.app).plugins.call_all(
        "cabinet_admin_user_attribution", session=session, campaign_id=campaign_id, partner_id=partner_id
    )
    return tuple(found)


@router.get("", permission=READ, responses={400: BAD_TARIFF_ID})
async def list_users(
    request: Request,
    session: AsyncSession,
    offset: Offset = 0,
    limit: Limit = 50,
    search: Text255 = None,
    email: Text255 = None,
    status: UserStatus | None = None,
    sort_by: SortBy = SortBy.CREATED_AT,
    subscription_status: Annotated[str | None, Query(max_length=20)] = None,
    tariff_id: Text255 = None,
    promo_group_id: Annotated[int | None, Query(ge=1, le=INT32_MAX)] = None,
    campaign_id: int | None = None,
    partner_id: int | None = None,
) -> UsersListResponse:
    """Get paginated list of users with filtering and sorting.

    - **search**: part of the username, first or last name or referral code (any case); all
      digits also match a messenger id or an internal id exactly
    - **email**: part of the e-mail (any case)
    - **status**: active, blocked or deleted
    - **subscription_status**: users with a subscription that is now active, trial, expired,
      disabled, limited or pending
    - **tariff_id**: users with a subscription of this tariff (several: separated by commas)
    - **promo_group_id**: users of this promo group
    - **campaign_id**, **partner_id**: users a campaign or partner brought, as the plugin that
      records it says; no installed plugin records it yet, so these match nobody
    - **sort_by**: created_at (newest first), balance, traffic (most used), last_activity,
      total_spent, purchase_count (largest first; ties newest first)
    """
    filters = listing.ListFilter(
        status=status.value if status else None,
        search=(search or "").strip() or None,
        email=(email or "").strip() or None,
        subscription_status=(subscription_status or "").strip().lower() or None,
        tariff_ids=_tariff_ids(tariff_id),
        promo_group_id=promo_group_id,
        campaign_id=campaign_id,
        partner_id=partner_id,
        attributed=await _attributed(request, session, campaign_id, partner_id),
    )
    return await _users_page(request, session, filters, sort_by, offset, limit)


@router.get("/stats", permission=READ)
async def get_users_stats(session: AsyncSession) -> UsersStatsResponse:
    """Users by status, sign-ups and activity (today in UTC, last 7 and 30 days), users by
    what their subscriptions are now, and the balances of active users."""
    return await stats.users_stats(session)


@router.get("/by-messenger/{messenger_id}", permission=READ)
async def get_user_by_messenger(
    request: Request, session: AsyncSession, messenger_id: BigInt
) -> UserDetailResponse:
    """Get a user by messenger id."""
    user = await find_user_by_messenger_id(session, messenger_id)
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    return await _detail(request, session, user)


@router.get("/{user_id}", permission=READ)
async def get_user_detail(request: Request, session: AsyncSession, user_id: int) -> UserDetailResponse:
    """Get detailed user information by internal id."""
    user = await get_user(session, user_id)
    return await _detail(request, session, user)


@router.get("/{user_id}/referrals", permission=READ)
async def get_user_referrals(
    request: Request, session: AsyncSession, user_id: int, offset: Offset = 0, limit: Limit = 50
) -> UsersListResponse:
    """The users this user referred, newest first."""
    user = await get_user(session, user_id)
    filters = listing.ListFilter(referred_by_id=user.id)
    return await _users_page(request, session, filters, SortBy.CREATED_AT, offset, limit)


@router.get("/{user_id}/transactions", permission=READ)
async def get_user_transactions(
    session: AsyncSession,
    user_id: int,
    offset: Offset = 0,
    limit: Limit = 50,
    transaction_type: str | None = None,
) -> UserTransactionsResponse:
    """The user's transactions, newest first, optionally of one type; money leaving the
    balance (withdrawals, subscription and gift payments) is negative."""
    user = await get_user(session, user_id)
    assert user.id is not None
    kind = (transaction_type or "").strip() or None
    total, items = await detail.transactions(session, user.id, kind, limit, offset)
    return UserTransactionsResponse(transactions=items, total=total, offset=offset, limit=limit)


@router.get("/{user_id}/available-tariffs", permission=READ)
async def get_user_available_tariffs(
    request: Request,
    session: AsyncSession,
    user_id: int,
    include_inactive: Annotated[bool, Query(description="Include inactive tariffs")] = False,
) -> UserAvailableTariffsResponse:
    """The tariffs and whether the user's promo group may buy each. Tariffs come from the
    plugin that keeps them (hook ``cabinet_admin_user_tariffs``); without one the list is
    empty."""
    user = await get_user(session, user_id)
    assert user.id is not None
    group = await find_group(session, user.promo_group_id) if user.promo_group_id is not None else None
    subscription = await current_subscription(session, user.id)
    found = await _hook(
        request,
        "cabinet_admin_user_tariffs",
        session=session,
        user_id=user.id,
        promo_group_id=user.promo_group_id,
        include_inactive=include_inactive,
    )
    tariffs = [UserAvailableTariffItem.model_validate(item) for item in found or ()]
    current_id = subscription.tariff_id if subscription else None
    current = next((t for t in tariffs if t.id == current_id), None)
    return UserAvailableTariffsResponse(
        user_id=user.id,
        promo_group_id=user.promo_group_id,
        promo_group_name=group.name if group else None,
        tariffs=tariffs,
        total=len(tariffs),
        current_tariff_id=current_id,
        current_tariff_name=current.name if current else None,
    )


@router.get("/{user_id}/gifts", permission=READ)
async def get_user_gifts(request: Request, session: AsyncSession, user_id: int) -> AdminUserGiftsResponse:
    """Gift subscriptions the user sent and received, from the plugin that keeps gifts
    (hook ``cabinet_admin_user_gifts``); without one both lists are empty."""
    user = await get_user(session, user_id)
    found = await _hook(request, "cabinet_admin_user_gifts", session=session, user_id=user.id)
    return AdminUserGiftsResponse.model_validate(found or {})

"""Cabinet (access JWT): `GET /cabinet/subscription[/info]` (tag Cabinet Subscription),
`/cabinet/subscriptions[/{subscription_id}]` (tag Cabinet Multi-Tariff, release 4.1.0),
`GET /cabinet/balance` and `/cabinet/balance/transactions` (tag Cabinet Balance). The
principal's id is the user's id."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc.api.pagination import Limit, Offset
from subsvc.auth.principal import Principal
from subsvc_cabinet import service
from subsvc_cabinet.schemas import (
    BalanceResponse,
    CabinetTransactionList,
    SubscriptionDeleted,
    SubscriptionListItem,
    SubscriptionsListResponse,
    SubscriptionStatusResponse,
)

subscription = Router(area="cabinet", tag="Cabinet Subscription")
multi = Router(area="cabinet", tag="Cabinet Multi-Tariff")
balance = Router(area="cabinet", tag="Cabinet Balance")


NOT_OWNED = {404: "Subscription not found (a `subscription_id` that is not the user's)"}


@subscription.get("/cabinet/subscription", responses=NOT_OWNED)
async def get_subscription(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    subscription_id: Annotated[
        int | None, Query(description="One of the user's subscriptions; default: the current one")
    ] = None,
) -> SubscriptionStatusResponse:
    """The user's current subscription, or the one named by `subscription_id`.

    Always 200: without a subscription `has_subscription` is false and `subscription` null.
    The current one is the user record's (the newest active or trial subscription, else the
    newest that is not an unpaid pending trial); with `MULTI_TARIFF_ENABLED` the active one
    that is not daily first, then the one with the most time left.
    """
    if subscription_id is not None:
        current: dict[str, object] | None = await service.owned_subscription(
            session, principal.id, subscription_id
        )
    else:
        current = await service.current_subscription(request.app, session, principal.id)
    if current is None:
        return SubscriptionStatusResponse(has_subscription=False, subscription=None)
    (view,) = await service.views(request.app, session, [current])
    return SubscriptionStatusResponse(has_subscription=True, subscription=view)


subscription.get("/cabinet/subscription/info", summary="Get Subscription Info", responses=NOT_OWNED)(
    get_subscription
)


@multi.get("/cabinet/subscriptions")
async def list_subscriptions(
    request: Request, session: AsyncSession, principal: Principal, limit: Limit = 50, offset: Offset = 0
) -> SubscriptionsListResponse:
    """Every subscription of the user, newest first, whatever the multi-tariff mode; the
    window `limit`/`offset` (not in the reference) is described by `total`, `limit`, `offset`."""
    every = await service.every_subscription(session, principal.id)
    items = await service.list_items(request.app, session, every[offset : offset + limit])
    return SubscriptionsListResponse(
        subscriptions=items,
        multi_tariff_enabled=service.multi_tariff(request.app),
        total=len(every),
        limit=limit,
        offset=offset,
    )


@multi.get("/cabinet/subscriptions/{subscription_id}", responses=NOT_OWNED)
async def get_subscription_detail(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: int
) -> SubscriptionListItem:
    """One of the user's subscriptions; 404 `Subscription not found` for any other id."""
    values = await service.owned_subscription(session, principal.id, subscription_id)
    (item,) = await service.list_items(request.app, session, [values])
    return item


@multi.delete(
    "/cabinet/subscriptions/{subscription_id}",
    responses={
        **NOT_OWNED,
        400: f"{service.ACTIVE_NOT_DELETABLE} (active, trial or limited: it has not ended)",
    },
)
async def delete_subscription(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: int
) -> SubscriptionDeleted:
    """Remove one of the user's subscriptions that has ended (expired, disabled, or an unpaid
    pending one) for good; its panel user is disabled through the panel integration's queue."""
    return await service.delete_subscription(request.app, session, principal.id, subscription_id)


@balance.get("/cabinet/balance", responses={404: service.USER_NOT_FOUND})
async def get_balance(session: AsyncSession, principal: Principal) -> BalanceResponse:
    """The user's balance."""
    return await service.balance(session, principal.id)


@balance.get("/cabinet/balance/transactions", responses={404: service.USER_NOT_FOUND})
async def get_transactions(
    session: AsyncSession,
    principal: Principal,
    page: Annotated[int, Query(ge=1, description="Page number")] = 1,
    per_page: Annotated[int, Query(ge=1, le=100, description="Items per page")] = 20,
    type: Annotated[str | None, Query(description="Filter by transaction type")] = None,
) -> CabinetTransactionList:
    """The user's transaction history, newest first; `type` keeps one transaction type."""
    return await service.transactions(session, principal.id, page=page, per_page=per_page, type=type)

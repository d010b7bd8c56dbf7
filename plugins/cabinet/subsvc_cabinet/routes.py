"""Cabinet (access JWT): `GET /cabinet/subscription`, `/cabinet/subscriptions` (tag Cabinet
Subscription), `GET /cabinet/balance` and `/cabinet/balance/transactions` (tag Cabinet
Balance). The principal's id is the user's id."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc.api.pagination import Limit, Offset, Page
from subsvc.auth.principal import Principal
from subsvc_cabinet import service
from subsvc_cabinet.schemas import (
    BalanceResponse,
    CabinetTransactionList,
    SubscriptionData,
    SubscriptionStatusResponse,
)
from subsvc_cabinet.settings import CabinetSettings

subscription = Router(area="cabinet", tag="Cabinet Subscription")
balance = Router(area="cabinet", tag="Cabinet Balance")


def _settings(request: Request) -> CabinetSettings:
    return CabinetSettings.of(request.app)


@subscription.get(
    "/cabinet/subscription",
    responses={404: "Subscription not found (a `subscription_id` that is not the user's)"},
)
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
    The current one is the user record's: the newest active or trial subscription, else the
    newest that is not an unpaid pending trial.
    """
    if subscription_id is not None:
        current: dict[str, object] | None = await service.owned_subscription(
            session, principal.id, subscription_id
        )
    else:
        current, _ = await service.user_subscriptions(session, principal.id)
    if current is None:
        return SubscriptionStatusResponse(has_subscription=False, subscription=None)
    (view,) = await service.subscription_views(session, [current], _settings(request))
    return SubscriptionStatusResponse(has_subscription=True, subscription=view)


subscription.get(
    "/cabinet/subscription/info",
    summary="Get Subscription Info",
    responses={404: "Subscription not found (a `subscription_id` that is not the user's)"},
)(get_subscription)


@subscription.get("/cabinet/subscriptions")
async def list_subscriptions(
    request: Request, session: AsyncSession, principal: Principal, limit: Limit = 50, offset: Offset = 0
) -> Page[SubscriptionData]:
    """Every subscription of the user, newest first, in the shape of `GET /cabinet/subscription`."""
    _, every = await service.user_subscriptions(session, principal.id)
    window = every[offset : offset + limit]
    items = await service.subscription_views(session, window, _settings(request))
    return Page[SubscriptionData](items=items, total=len(every), limit=limit, offset=offset)


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

"""`/subscriptions` (Web API, tag `subscriptions`) and `/users/{user_id}/subscription` (tag `users`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import User, UserResponse, get_user, user_record

from subsvc.api import BigInt, HTTPError, Limit, Offset, Query, Router, fits_int32
from subsvc.api.endpoint import Handler
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc.services import services
from subsvc_subscriptions import service
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.schemas import (
    SubscriptionCreateRequest,
    SubscriptionDevicesRequest,
    SubscriptionExtendRequest,
    SubscriptionResponse,
    SubscriptionSquadRequest,
    SubscriptionStatus,
    SubscriptionTrafficRequest,
    UserSubscriptionCreateRequest,
)
from subsvc_subscriptions.settings import SubscriptionSettings

NOT_FOUND = "Subscription not found"
USER_NOT_FOUND = "User not found"
NO_SUBSCRIPTION = "User has no subscription"

# the reference's permission registry has no section of its own for subscriptions: they are
# the users section's `subscription` action (reads are `users:read`)
READ, CHANGE = "users:read", "users:subscription"

router = Router(area="web", tag="subscriptions", permission=CHANGE)
users_router = Router(area="web", tag="users", permission=CHANGE)

_NOT_FOUND_RESPONSE = {404: NOT_FOUND}
_RULES_RESPONSES = {400: "Refused by the subscription rules", 404: NOT_FOUND}


def _events(request: Request) -> EventBus:
    events: EventBus = services(request.app).events
    return events


def _settings(request: Request) -> SubscriptionSettings:
    return SubscriptionSettings.of(request.app)


def _order(payload: UserSubscriptionCreateRequest) -> service.Order:
    return service.Order(
        is_trial=payload.is_trial,
        days=payload.days,
        traffic_limit_gb=payload.traffic_limit_gb,
        device_limit=payload.device_limit,
        squad_uuid=payload.squad_uuid,
        connected_squads=payload.connected_squads,
        replace_existing=payload.replace_existing,
        subscription_id=payload.subscription_id,
    )


async def _create_or_replace(
    request: Request, session: AsyncSession, user: User, payload: UserSubscriptionCreateRequest
) -> Subscription:
    return await service.create_or_replace(
        session, _events(request), _settings(request), user, _order(payload)
    )


async def _answered(change: Awaitable[Subscription]) -> SubscriptionResponse:
    """The record of the subscription a change gives (a refusal of the rules is a 400, as
    the plugin declares)."""
    return service.response(await change)


def _change(method: str, path: str, responses: dict[int, str]) -> Callable[[Handler], Handler]:
    """Declare a change of one subscription (``/subscriptions/{subscription_id}`` + ``path``)
    that answers its record."""
    return router.route(method, f"/subscriptions/{{subscription_id}}{path}", responses=responses)


async def _subscription(
    session: AsyncSession, subscription_id: int, *, for_update: bool = True
) -> Subscription:
    """The subscription (locked for a change unless ``for_update`` is false), or 404."""
    subscription = await service.get(session, subscription_id, for_update=for_update)
    if subscription is None:
        raise HTTPError(404, NOT_FOUND)
    return subscription


# --- /subscriptions ------------------------------------------------------------------------------


@router.get("/subscriptions", permission=READ)
async def list_subscriptions(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    status: SubscriptionStatus | None = None,
    user_id: int | None = None,
    is_trial: bool | None = None,
) -> list[SubscriptionResponse]:
    """Subscriptions, newest first (a bare array), filtered by stored status, internal user id
    and trial flag."""
    rows = await service.list_subscriptions(
        session, limit=limit, offset=offset, status=status, user_id=user_id, is_trial=is_trial
    )
    now = utcnow()
    return [service.response(row, now) for row in rows]


@router.post(
    "/subscriptions",
    status_code=201,
    responses={400: "Refused by the subscription rules", 404: f"{USER_NOT_FOUND}; {NOT_FOUND}"},
)
async def create_subscription(
    request: Request, session: AsyncSession, payload: SubscriptionCreateRequest
) -> SubscriptionResponse:
    """Create a trial or paid subscription for a user (internal id), or replace the user's
    current one (or the one of theirs ``subscription_id`` names) with ``replace_existing``."""
    user = None
    if fits_int32(payload.user_id):
        query = select(User).where(col(User.id) == payload.user_id).with_for_update()
        user = (await session.exec(query)).first()
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    return service.response(await _create_or_replace(request, session, user, payload))


@router.get("/subscriptions/{subscription_id}", responses=_NOT_FOUND_RESPONSE, permission=READ)
async def get_subscription(session: AsyncSession, subscription_id: int) -> SubscriptionResponse:
    return service.response(await _subscription(session, subscription_id, for_update=False))


@_change("DELETE", "", _NOT_FOUND_RESPONSE)
async def delete_subscription(
    request: Request, session: AsyncSession, subscription_id: int
) -> SubscriptionResponse:
    """Deactivate a subscription: it is kept, with status ``disabled``."""
    subscription = await _subscription(session, subscription_id)
    return await _answered(service.disable(session, _events(request), subscription))


@_change("POST", "/extend", _RULES_RESPONSES)
async def extend_subscription_endpoint(
    request: Request, session: AsyncSession, subscription_id: int, payload: SubscriptionExtendRequest
) -> SubscriptionResponse:
    """Add days: from the end when it is still ahead, else from now; an expired, disabled,
    limited or trial status becomes active."""
    subscription = await _subscription(session, subscription_id)
    return await _answered(service.extend(session, _events(request), subscription, payload.days))


@_change("POST", "/traffic", _RULES_RESPONSES)
async def add_subscription_traffic_endpoint(
    request: Request, session: AsyncSession, subscription_id: int, payload: SubscriptionTrafficRequest
) -> SubscriptionResponse:
    """Add traffic (nothing changes on an unlimited subscription) and record the purchase;
    a disabled, expired or limited subscription whose end is ahead becomes active."""
    subscription = await _subscription(session, subscription_id)
    return await _answered(
        service.add_traffic(session, _events(request), _settings(request), subscription, payload.gb)
    )


@_change("POST", "/devices", _RULES_RESPONSES)
async def add_subscription_devices_endpoint(
    request: Request, session: AsyncSession, subscription_id: int, payload: SubscriptionDevicesRequest
) -> SubscriptionResponse:
    """Raise the device limit (capped by ``MAX_DEVICES_LIMIT``); a disabled, expired or
    limited subscription whose end is ahead becomes active."""
    subscription = await _subscription(session, subscription_id)
    return await _answered(
        service.add_devices(session, _events(request), _settings(request), subscription, payload.devices)
    )


@_change("POST", "/squads", _RULES_RESPONSES)
async def add_subscription_squad_endpoint(
    request: Request, session: AsyncSession, subscription_id: int, payload: SubscriptionSquadRequest
) -> SubscriptionResponse:
    """Connect a squad (kept once)."""
    subscription = await _subscription(session, subscription_id)
    return await _answered(service.add_squad(session, _events(request), subscription, payload.squad_uuid))


@_change("DELETE", "/squads/{squad_uuid}", _NOT_FOUND_RESPONSE)
async def remove_subscription_squad_endpoint(
    request: Request, session: AsyncSession, subscription_id: int, squad_uuid: str
) -> SubscriptionResponse:
    """Disconnect a squad."""
    subscription = await _subscription(session, subscription_id)
    return await _answered(service.remove_squad(session, _events(request), subscription, squad_uuid))


# --- /users/{user_id}/subscription ---------------------------------------------------------------


async def _user_order(
    request: Request, session: AsyncSession, user_id: int, payload: UserSubscriptionCreateRequest
) -> UserResponse:
    """Create or replace the subscription of the user (messenger id, else internal id)."""
    user = await get_user(session, user_id, for_update=True)
    await _create_or_replace(request, session, user, payload)
    return await user_record(request, session, user)


_USER_SUBSCRIPTION_RESPONSES = {
    400: "Refused by the subscription rules",
    404: f"{USER_NOT_FOUND}; {NOT_FOUND}",
}


@users_router.post("/users/{user_id}/subscription", status_code=201, responses=_USER_SUBSCRIPTION_RESPONSES)
async def create_user_subscription(
    request: Request, session: AsyncSession, user_id: BigInt, payload: UserSubscriptionCreateRequest
) -> UserResponse:
    """Create or replace a user's (trial or paid) subscription; with ``replace_existing`` the
    current one, or the one of theirs ``subscription_id`` names, is replaced. Answers the user
    record."""
    return await _user_order(request, session, user_id, payload)


@users_router.patch("/users/{user_id}/subscription", status_code=201, responses=_USER_SUBSCRIPTION_RESPONSES)
async def patch_user_subscription(
    request: Request, session: AsyncSession, user_id: BigInt, payload: UserSubscriptionCreateRequest
) -> UserResponse:
    """The same as ``POST``: create or replace a user's subscription (201, the user record)."""
    return await _user_order(request, session, user_id, payload)


@users_router.delete(
    "/users/{user_id}/subscription", responses={404: f"{USER_NOT_FOUND} / {NO_SUBSCRIPTION}"}
)
async def delete_user_subscription(
    request: Request,
    session: AsyncSession,
    user_id: BigInt,
    subscription_id: Annotated[
        int | None, Query(description="The subscription to deactivate (default: the current one).")
    ] = None,
) -> UserResponse:
    """Deactivate the user's current subscription (or the given one of theirs): it is kept,
    with status ``disabled``; answers the user record."""
    user = await get_user(session, user_id)
    assert user.id is not None
    subscription: Subscription | None
    if subscription_id is None:
        subscription = await service.primary_of(session, user.id, for_update=True)
    else:
        subscription = await service.get(session, subscription_id, for_update=True)
        if subscription is not None and subscription.user_id != user.id:
            subscription = None
    if subscription is None:
        raise HTTPError(404, NO_SUBSCRIPTION)
    await service.disable(session, _events(request), subscription)
    return await user_record(request, session, user)

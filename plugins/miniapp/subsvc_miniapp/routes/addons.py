"""``/miniapp/subscription/traffic-topup``, ``/servers``, ``/traffic`` and ``/devices``: the
addons plugin's purchases (its api), refusals in the object style (``{code, message}``; a
402 ``insufficient_funds`` as the cabinet's, its cart saved)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_addons.api import (
    TrafficPurchased,
    purchase_devices,
    purchase_traffic,
    reduce_devices,
    switch_traffic,
    update_countries,
)

from subsvc.api import HTTPError, Router
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc_miniapp import auth, dashboard
from subsvc_miniapp.addon_schemas import (
    MiniAppSubscriptionDevicesUpdateRequest,
    MiniAppSubscriptionServersUpdateRequest,
    MiniAppSubscriptionTrafficUpdateRequest,
    MiniAppSubscriptionUpdateResponse,
    MiniAppTrafficTopupRequest,
)
from subsvc_miniapp.refusals import as_object

router = Router(area="web", tag="miniapp")
T = TypeVar("T")
REFUSED = "`{code, message}`: the addons plugin's refusal (the cabinet's text, `code` of the status)"
PAID: dict[int, str] = {
    **auth.USER_RESPONSES,
    **PANEL_RESPONSES,
    400: REFUSED,
    402: "`{code: insufficient_funds, message, ...}`: the balance is short (the cabinet's cart saved)",
    403: REFUSED,
    404: "`{code: subscription_not_found}`, or the user's refusals",
    409: REFUSED,
}
NO_SERVERS = {"code": "invalid_request", "message": "At least one country must be selected"}
NO_TRAFFIC = {"code": "invalid_request", "message": "Invalid traffic package"}
NO_DEVICES = {"code": "invalid_request", "message": "Invalid new_device_limit"}
UNCHANGED = {"code": "invalid_request", "message": "Device limit is unchanged"}


async def _mapped(call: Awaitable[T]) -> T:
    """The addons service's answer, its refusal in the object style."""
    try:
        return await call
    except HTTPError as refused:
        raise as_object(refused.status_code, refused.detail) from None


@router.post(
    "/miniapp/subscription/traffic-topup", public=True, response_model=TrafficPurchased, responses=PAID
)
async def purchase_traffic_topup(
    request: Request, session: AsyncSession, body: MiniAppTrafficTopupRequest
) -> TrafficPurchased:
    """Buy a traffic package for the subscription from the balance (the cabinet's traffic
    purchase: its packages, prices, limits; 402 with the `add_traffic` cart saved)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    return await _mapped(purchase_traffic(request.app, session, user.id, body.subscriptionId, body.gb))


@router.post("/miniapp/subscription/servers", public=True, responses=PAID)
async def update_subscription_servers(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionServersUpdateRequest
) -> MiniAppSubscriptionUpdateResponse:
    """Set the subscription's servers (countries): the added ones paid for the days left, the
    removed ones free (the cabinet's countries update). The list is the first of `servers`,
    `squads`, `server_uuids`, `squad_uuids` given."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    squads = next((s for s in (body.servers, body.squads, body.server_uuids, body.squad_uuids) if s), None)
    if not squads:
        raise HTTPError(400, NO_SERVERS)
    done = await _mapped(update_countries(request.app, session, user.id, body.subscription_id, squads))
    return MiniAppSubscriptionUpdateResponse(message=done.message)


@router.post("/miniapp/subscription/traffic", public=True, responses=PAID)
async def update_subscription_traffic(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionTrafficUpdateRequest
) -> MiniAppSubscriptionUpdateResponse:
    """Switch a classic subscription to another traffic package (`traffic` or `traffic_gb`):
    an upgrade pays the difference for the days left, a downgrade is free (the cabinet's)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    gb = body.traffic if body.traffic is not None else body.traffic_gb
    if gb is None:
        raise HTTPError(400, NO_TRAFFIC)
    done = await _mapped(switch_traffic(request.app, session, user.id, body.subscription_id, gb))
    return MiniAppSubscriptionUpdateResponse(message=done.message)


@router.post("/miniapp/subscription/devices", public=True, responses=PAID)
async def update_subscription_devices(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionDevicesUpdateRequest
) -> MiniAppSubscriptionUpdateResponse:
    """Set the subscription's device limit (`devices` or `device_limit`, the new total): more
    are bought (the cabinet's device purchase, 402 with the `add_devices` cart saved), fewer
    reduce it (the cabinet's reduction: the excess devices deleted in the panel, no refund)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    wanted = body.devices if body.devices is not None else body.device_limit
    if wanted is None or wanted < 1:
        raise HTTPError(400, NO_DEVICES)
    app = request.app
    subscription = await dashboard.current_subscription(app, session, user.id, body.subscription_id)
    if subscription is None:
        raise HTTPError(404, {"code": "subscription_not_found", "message": "No subscription found"})
    if wanted == subscription.device_limit:
        raise HTTPError(400, UNCHANGED)
    if wanted > subscription.device_limit:
        more = wanted - subscription.device_limit
        bought = await _mapped(purchase_devices(app, session, user.id, subscription.id, more))
        return MiniAppSubscriptionUpdateResponse(message=bought.message)
    reduced = await _mapped(reduce_devices(app, session, user.id, subscription.id, wanted))
    return MiniAppSubscriptionUpdateResponse(message=reduced.message)

"""Cabinet (access JWT), tag Cabinet Subscription: the add-on operations of
``/cabinet/subscription``. Each takes the 4.1.0 query ``subscription_id`` (one of the user's
own; default: the current one), but ``happ-downloads``."""

from __future__ import annotations

from typing import Annotated, Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import SubscriptionIdQuery

from subsvc.api import Path, Router
from subsvc.auth.principal import Principal
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc_addons import devices, links, traffic
from subsvc_addons.models import HWID_LENGTH
from subsvc_addons.owned import NO_SUBSCRIPTION, PANEL_USER_NOT_FOUND, subscription_of
from subsvc_addons.schemas import (
    ConnectionLink,
    DeviceDeleted,
    DeviceListResponse,
    DeviceRenamed,
    DeviceRenameRequest,
    DevicesDeleted,
    HappDownloads,
    Revoked,
    TrafficRefresh,
)

router = Router(area="cabinet", tag="Cabinet Subscription")
Hwid = Annotated[str, Path(min_length=1, max_length=HWID_LENGTH)]
PANEL_ACTION = {
    **PANEL_RESPONSES,
    400: PANEL_USER_NOT_FOUND + " (the panel has no account for the subscription yet)",
    404: NO_SUBSCRIPTION,
}


@router.get("/cabinet/subscription/devices", responses={404: NO_SUBSCRIPTION})
async def get_devices(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> DeviceListResponse:
    """The devices connected to the subscription's panel account, with the names the user gave
    them; an empty list while the panel cannot say (no panel, no account yet, down)."""
    return await devices.device_list(request.app, session, principal.id, subscription_id)


@router.delete("/cabinet/subscription/devices", responses=PANEL_ACTION)
async def delete_all_devices(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> DevicesDeleted:
    """Forget every device of the subscription's panel account (at once, in the panel)."""
    return await devices.delete_all_devices(request.app, session, principal.id, subscription_id)


@router.delete(
    "/cabinet/subscription/devices/{hwid}",
    responses={**PANEL_ACTION, 404: f"{NO_SUBSCRIPTION}, or {devices.DEVICE_NOT_FOUND} in its account"},
)
async def delete_device(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    hwid: Hwid,
    subscription_id: SubscriptionIdQuery = None,
) -> DeviceDeleted:
    """Forget one device of the subscription's panel account (at once, in the panel)."""
    return await devices.delete_device(request.app, session, principal.id, subscription_id, hwid)


@router.patch("/cabinet/subscription/devices/{hwid}/name", responses={404: NO_SUBSCRIPTION})
async def rename_device(
    session: AsyncSession,
    principal: Principal,
    hwid: Hwid,
    payload: DeviceRenameRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> DeviceRenamed:
    """Name a device (for all of the user's subscriptions: the name follows the hardware id);
    null or an empty name clears it."""
    await subscription_of(session, principal.id, subscription_id)
    name = await devices.rename_device(session, principal.id, hwid, payload.name)
    return DeviceRenamed(hwid=hwid, local_name=name)


@router.get(
    "/cabinet/subscription/connection-link",
    responses={404: f"{NO_SUBSCRIPTION}, or {links.NO_LINK} (before the panel made the account)"},
)
async def get_connection_link(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> ConnectionLink:
    """The subscription's link (written back by the panel sync after a push) and how to use it."""
    return await links.connection_link(request.app, session, principal.id, subscription_id)


@router.post("/cabinet/subscription/revoke", responses=PANEL_ACTION)
async def revoke_subscription(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> Revoked:
    """Revoke the subscription's link in the panel (at once): the old link stops working, the
    new one is kept and answered."""
    return await links.revoke(request.app, session, principal.id, subscription_id)


@router.get("/cabinet/subscription/happ-downloads")
async def get_happ_downloads(request: Request, principal: Principal) -> HappDownloads:
    """The Happ app's download links per platform (`HAPP_DOWNLOAD_LINKS`)."""
    return links.happ_downloads(request.app)


@router.get("/cabinet/subscription/app-config", responses={404: links.NO_APP_CONFIG})
async def get_app_config(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> dict[str, Any]:
    """The connection apps per platform (`APP_CONFIG_FILE`) with the subscription's links in
    place of `{{SUBSCRIPTION_LINK}}`, `{{HAPP_CRYPT3_LINK}}` and `{{HAPP_CRYPT4_LINK}}`."""
    return await links.app_config(request.app, session, principal.id, subscription_id)


@router.post(
    "/cabinet/subscription/refresh-traffic",
    responses={404: traffic.NO_ACTIVE_SUBSCRIPTION, 429: "Asked again within a minute (`Retry-After`)"},
)
async def refresh_traffic(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> TrafficRefresh:
    """The traffic the subscription used, read from the panel now (once a minute; the minute's
    answer again when asked sooner) and stored with it."""
    return await traffic.refresh_traffic(request.app, session, principal.id, subscription_id)

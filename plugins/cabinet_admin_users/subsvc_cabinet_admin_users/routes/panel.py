"""The user's VPN panel account: devices, per-node traffic, panel info and the syncs.

Each operation asks the ``cabinet_admin_panel`` hook for the panel gateway; without one
(no panel plugin installed) it answers 503 ``VPN panel is not configured``. A panel failure
is a 502 naming what the panel said.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.api import HTTPError, Path, Query, from_attributes
from subsvc.db import utcnow
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc.panel import PanelUser, PushOptions, failures_as_502
from subsvc_cabinet_admin_users import sync
from subsvc_cabinet_admin_users.lookup import admin_settings, chosen_subscription
from subsvc_cabinet_admin_users.models import DeviceName
from subsvc_cabinet_admin_users.names import tariff_names
from subsvc_cabinet_admin_users.panel import GATEWAY, PanelGateway
from subsvc_cabinet_admin_users.routes.common import (
    EDIT,
    READ,
    SYNC,
    USER_NOT_FOUND,
    get_user,
    new_router,
    settings,
)
from subsvc_cabinet_admin_users.schemas import (
    DeleteDeviceResponse,
    DeviceInfo,
    PanelSyncStatusResponse,
    RenameDeviceRequest,
    RenameDeviceResponse,
    ResetDevicesResponse,
    SyncFromPanelRequest,
    SyncFromPanelResponse,
    SyncToPanelRequest,
    SyncToPanelResponse,
    UserDevicesResponse,
    UserNodeUsageItem,
    UserNodeUsageResponse,
    UserPanelInfoResponse,
)

router = new_router()

NO_ACCOUNT = "User has no panel account"
NO_SUBSCRIPTION = "User has no subscription"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
PANEL = {404: f"{USER_NOT_FOUND}; {SUBSCRIPTION_NOT_FOUND} (not one of the user's)", **PANEL_RESPONSES}
SubscriptionId = Annotated[
    int | None,
    Query(description="Subscription ID for multi-tariff (one of the user's; default: the current one)"),
]


async def named_subscription(
    session: AsyncSession, user: User, subscription_id: int | None, *, for_update: bool = False
) -> Subscription | None:
    """The subscription the request names (404 when it is not the user's), else the current one."""
    assert user.id is not None
    found = await chosen_subscription(session, user.id, subscription_id, for_update=for_update)
    if found is None and subscription_id is not None:
        raise HTTPError(404, SUBSCRIPTION_NOT_FOUND)
    return found


async def local_names(session: AsyncSession, subscription: Subscription | None) -> dict[str, str]:
    """The administrators' names of the subscription's devices, by hardware id."""
    if subscription is None:
        return {}
    rows = await session.exec(select(DeviceName).where(col(DeviceName.subscription_id) == subscription.id))
    return {row.hwid: row.name for row in rows.all()}


async def _account(
    request: Request, session: AsyncSession, user_id: int, *, for_update: bool = False
) -> tuple[User, PanelGateway, PanelUser | None]:
    """The user (404), the panel gateway (503) and the user's panel account, if any (502)."""
    user = await get_user(session, user_id, for_update=for_update)
    gateway = await GATEWAY.require(request.app)
    with failures_as_502():
        account = await sync.find_account(gateway, session, user)
    return user, gateway, account


async def _existing_account(
    request: Request, session: AsyncSession, user_id: int, subscription_id: int | None
) -> tuple[PanelGateway, PanelUser]:
    """The panel gateway and the user's panel account; 400 when the user has none."""
    user, gateway, account = await _account(request, session, user_id)
    await named_subscription(session, user, subscription_id)
    if account is None:
        raise HTTPError(400, NO_ACCOUNT)
    return gateway, account


@router.get("/{user_id}/devices", permission=READ, responses=PANEL)
async def get_user_devices(
    request: Request, session: AsyncSession, user_id: int, subscription_id: SubscriptionId = None
) -> UserDevicesResponse:
    """The devices the panel knows for the user, with the names administrators gave them on
    the subscription, and the subscription's device limit (the current subscription, or the
    one of the user's `subscription_id` names). The panel keeps one account per user: its
    devices are those of every subscription."""
    user, gateway, account = await _account(request, session, user_id)
    subscription = await named_subscription(session, user, subscription_id)
    limit = subscription.device_limit if subscription else 0
    with failures_as_502():
        found = await gateway.devices(account.uuid) if account else []
    names = await local_names(session, subscription)
    devices = [DeviceInfo(**vars(device), local_name=names.get(device.hwid)) for device in found]
    return UserDevicesResponse(devices=devices, total=len(devices), device_limit=limit)


@router.delete("/{user_id}/devices", permission=EDIT, responses={400: NO_ACCOUNT, **PANEL})
async def reset_user_devices(
    request: Request, session: AsyncSession, user_id: int, subscription_id: SubscriptionId = None
) -> ResetDevicesResponse:
    """Remove every device of the user from the panel (`subscription_id`: one of the user's,
    else 404; the panel's account is the user's)."""
    gateway, account = await _existing_account(request, session, user_id, subscription_id)
    with failures_as_502():
        devices = await gateway.devices(account.uuid)
        deleted = 0
        for device in devices:
            deleted += bool(await gateway.delete_device(account.uuid, device.hwid))
    if not devices:
        return ResetDevicesResponse(success=True, message="No devices to reset", deleted_count=0)
    return ResetDevicesResponse(
        success=deleted == len(devices),
        message=f"Deleted {deleted}/{len(devices)} devices",
        deleted_count=deleted,
    )


@router.delete("/{user_id}/devices/{hwid}", permission=EDIT, responses={400: NO_ACCOUNT, **PANEL})
async def delete_user_device(
    request: Request, session: AsyncSession, user_id: int, hwid: str, subscription_id: SubscriptionId = None
) -> DeleteDeviceResponse:
    """Remove one device (by its hardware id) from the user's panel account; 404 when the
    panel has no such device for the user (`subscription_id`: one of the user's, else 404)."""
    gateway, account = await _existing_account(request, session, user_id, subscription_id)
    with failures_as_502():
        deleted = await gateway.delete_device(account.uuid, hwid)
    if not deleted:
        raise HTTPError(404, "Device not found")
    return DeleteDeviceResponse(success=True, message="Device deleted", deleted_hwid=hwid)


@router.patch(
    "/{user_id}/devices/{hwid}/name",
    permission=EDIT,
    responses={404: f"{USER_NOT_FOUND}; {NO_SUBSCRIPTION}; {SUBSCRIPTION_NOT_FOUND}"},
)
async def rename_user_device(
    session: AsyncSession,
    user_id: int,
    hwid: Annotated[str, Path(max_length=255)],
    payload: RenameDeviceRequest,
    subscription_id: SubscriptionId = None,
) -> RenameDeviceResponse:
    """Set or clear (empty or null `name`) the local name of a device of the user's
    subscription (the current one, or the one of theirs `subscription_id` names). Names are
    kept here, per subscription and hardware id; the panel is not asked."""
    user = await get_user(session, user_id, for_update=True)
    subscription = await named_subscription(session, user, subscription_id)
    if subscription is None:
        raise HTTPError(404, NO_SUBSCRIPTION)
    assert subscription.id is not None
    name = (payload.name or "").strip() or None
    row = await session.get(DeviceName, (subscription.id, hwid), with_for_update=True)
    if name is None:
        if row is not None:
            await session.delete(row)
    elif row is None:
        session.add(DeviceName(subscription_id=subscription.id, hwid=hwid, name=name))
    else:
        row.name, row.updated_at = name, utcnow()
    await session.flush()
    return RenameDeviceResponse(hwid=hwid, local_name=name)


@router.get("/{user_id}/node-usage", permission=READ, responses=PANEL)
async def get_user_node_usage(
    request: Request, session: AsyncSession, user_id: int, subscription_id: SubscriptionId = None
) -> UserNodeUsageResponse:
    """Traffic per panel node over the last `ADMIN_USER_NODE_USAGE_DAYS` days (30), one figure
    per day, the busiest node first (`subscription_id`: one of the user's, else 404)."""
    user, gateway, account = await _account(request, session, user_id)
    await named_subscription(session, user, subscription_id)
    days = settings(request).ADMIN_USER_NODE_USAGE_DAYS
    if account is None:
        return UserNodeUsageResponse(items=[], period_days=days)
    end = utcnow().date()
    with failures_as_502():
        categories, nodes = await gateway.node_usage(account.uuid, end - timedelta(days=days), end)
    found = [UserNodeUsageItem.model_validate(node, from_attributes=True) for node in nodes]
    items = sorted(found, key=lambda item: item.total_bytes, reverse=True)
    return UserNodeUsageResponse(items=items, categories=categories, period_days=days)


@router.get("/{user_id}/panel-info", permission=READ, responses=PANEL)
async def get_user_panel_info(
    request: Request, session: AsyncSession, user_id: int, subscription_id: SubscriptionId = None
) -> UserPanelInfoResponse:
    """The user's panel account: connection secrets and links, traffic, last connection
    (`subscription_id`: one of the user's, else 404)."""
    user, _, account = await _account(request, session, user_id)
    await named_subscription(session, user, subscription_id)
    if account is None:
        return UserPanelInfoResponse(found=False)
    info = UserPanelInfoResponse.model_validate(account, from_attributes=True)  # its fields of the account
    return info.model_copy(update={"found": True})


@router.get("/{user_id}/sync/status", permission=SYNC, responses=PANEL)
async def get_user_sync_status(
    request: Request, session: AsyncSession, user_id: int, subscription_id: SubscriptionId = None
) -> PanelSyncStatusResponse:
    """The user's subscription (the current one, or the one of theirs `subscription_id`
    names) beside the panel account, and what differs between them."""
    user, _, account = await _account(request, session, user_id)
    assert user.id is not None
    subscription = await named_subscription(session, user, subscription_id)
    link = await admin_settings(session, user.id)
    names = await tariff_names(request.app, session, [subscription.tariff_id if subscription else None])
    status = PanelSyncStatusResponse(
        user_id=user.id,
        messenger_id=user.messenger_id,
        panel_uuid=account.uuid if account else (link.panel_uuid if link else None),
        last_sync=link.last_panel_sync if link else None,
        subscription_id=subscription.id if subscription else None,
        subscription_tariff_name=names.get(subscription.tariff_id)
        if subscription and subscription.tariff_id
        else None,
    )
    if subscription is not None:
        status.bot_subscription_status = subscription.status
        status.bot_subscription_end_date = subscription.end_date
        status.bot_traffic_limit_gb = subscription.traffic_limit_gb
        status.bot_traffic_used_gb = subscription.traffic_used_gb
        status.bot_device_limit = subscription.device_limit
        status.bot_squads = list(subscription.connected_squads)
    if account is not None:
        status.panel_found = True
        status.panel_status = account.status
        status.panel_expire_at = account.expire_at
        status.panel_traffic_limit_gb = sync.gigabytes(account.traffic_limit_bytes)
        status.panel_traffic_used_gb = sync.gigabytes(account.used_traffic_bytes)
        status.panel_device_limit = account.device_limit
        status.panel_squads = list(account.active_squads)
        status.differences = sync.differences(subscription, account)
    else:
        status.differences = ["User not found in panel"]
    status.has_differences = bool(status.differences)
    return status


@router.post("/{user_id}/sync/from-panel", permission=SYNC, responses=PANEL)
async def sync_user_from_panel(
    request: Request,
    session: AsyncSession,
    user_id: int,
    payload: SyncFromPanelRequest = SyncFromPanelRequest(),
    subscription_id: SubscriptionId = None,
) -> SyncFromPanelResponse:
    """Write the panel account's state (end date, status, traffic, devices, squads, link)
    into the user's subscription (the current one, or the one of theirs `subscription_id`
    names); `create_if_missing` creates one from the account."""
    user, _, account = await _account(request, session, user_id, for_update=True)
    assert user.id is not None
    subscription = await named_subscription(session, user, subscription_id, for_update=True)
    if account is None:
        return SyncFromPanelResponse(
            success=False,
            message="User not found in panel",
            errors=["No panel account found by the recorded link, messenger id or e-mail"],
        )
    now = utcnow()
    changes: dict[str, object] = {}
    if subscription is not None:
        changes = sync.apply_account(subscription, account, payload, now)
    elif payload.create_if_missing and account.expire_at is not None:
        created = await sync.create_from_account(request.app, session, user, account, now)
        changes["subscription_created"] = created.id
    old_link = await admin_settings(session, user.id)
    if old_link is None or old_link.panel_uuid != account.uuid:
        changes["panel_uuid"] = {"old": old_link.panel_uuid if old_link else None, "new": account.uuid}
    await sync.record_link(session, user.id, account.uuid)
    message = f"Synced {len(changes)} changes from panel" if changes else "No changes needed"
    return SyncFromPanelResponse(
        success=True, message=message, panel_user=sync.account_info(account), changes=changes
    )


@router.post(
    "/{user_id}/sync/to-panel", permission=SYNC, responses={400: "User has no subscription to sync", **PANEL}
)
async def sync_user_to_panel(
    request: Request,
    session: AsyncSession,
    user_id: int,
    payload: SyncToPanelRequest = SyncToPanelRequest(),
    subscription_id: SubscriptionId = None,
) -> SyncToPanelResponse:
    """Write the user's subscription (the current one, or the one of theirs
    `subscription_id` names) to the panel account, creating the account when missing
    (`create_if_missing`); the flags choose what is written."""
    user = await get_user(session, user_id, for_update=True)
    gateway = await GATEWAY.require(request.app)
    assert user.id is not None
    subscription = await named_subscription(session, user, subscription_id, for_update=True)
    if subscription is None:
        raise HTTPError(400, "User has no subscription to sync")
    link = await admin_settings(session, user.id)
    options = PushOptions(
        create_if_missing=payload.create_if_missing,
        status=payload.update_status,
        traffic_limit=payload.update_traffic_limit,
        expire_date=payload.update_expire_date,
        squads=payload.update_squads,
    )
    with failures_as_502():
        result = await gateway.push(user, subscription, link.panel_uuid if link else None, options)
    if result.panel_uuid:
        subscriptions.mark_synced(subscription)
    await sync.record_link(session, user.id, result.panel_uuid)
    message = f"User {result.action} in panel" if result.action != "no_changes" else "No changes needed"
    return from_attributes(SyncToPanelResponse, result, success=True, message=message)

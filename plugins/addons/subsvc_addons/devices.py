"""A subscription's devices, read from and deleted in its panel account at once (not queued:
nothing is paid, and the user waits for the answer), and the names the user gives them."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.panel import PanelDevice, PanelError, failures_as_502
from subsvc_addons.models import NAME_LENGTH, DeviceName
from subsvc_addons.owned import PANEL, account_of, subscription_of
from subsvc_addons.schemas import DeviceDeleted, DeviceInfo, DeviceListResponse, DevicesDeleted

log = logging.getLogger("subsvc.addons")
DEVICE_NOT_FOUND = "Device not found"


async def panel_devices(
    app: Starlette, session: AsyncSession, subscription: Subscription
) -> list[PanelDevice]:
    """The devices of the subscription's panel account, in the panel's order; none without a
    panel, an account, or an answer (a failure is logged)."""
    panel = await PANEL.find(app)
    if panel is None:
        return []
    assert subscription.id is not None
    try:
        account = await panel.account(session, subscription.id)
        return list(await panel.devices(account.uuid)) if account is not None else []
    except PanelError as exc:
        log.warning("devices of subscription %s: the panel failed: %s", subscription.id, exc)
        return []


async def device_list(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> DeviceListResponse:
    """The subscription's devices with the user's names of them (none when the panel cannot
    say): 404 without a subscription."""
    subscription = await subscription_of(session, user_id, subscription_id)
    devices = await panel_devices(app, session, subscription)
    names = await names_of(session, subscription.user_id, [d.hwid for d in devices])
    return DeviceListResponse(
        devices=[
            DeviceInfo(
                hwid=d.hwid,
                platform=d.platform,
                device_model=d.device_model,
                created_at=d.created_at,
                local_name=names.get(d.hwid),
            )
            for d in devices
        ],
        total=len(devices),
        device_limit=subscription.device_limit,
    )


async def delete_device(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, hwid: str
) -> DeviceDeleted:
    """Forget one device in the panel: 404 without a subscription or when its account has no
    such device, 400 without an account, 502 when the panel fails, 503 without a panel."""
    subscription = await subscription_of(session, user_id, subscription_id)
    with failures_as_502():
        panel, account = await account_of(app, session, subscription)
        if not await panel.delete_device(account.uuid, hwid):
            raise HTTPError(404, DEVICE_NOT_FOUND)
    return DeviceDeleted(message="Device deleted successfully", deleted_hwid=hwid)


async def delete_all_devices(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> DevicesDeleted:
    """Forget every device of the subscription's account in the panel (answers as
    :func:`delete_device`)."""
    subscription = await subscription_of(session, user_id, subscription_id)
    with failures_as_502():
        panel, account = await account_of(app, session, subscription)
        count = await panel.delete_all_devices(account.uuid)
    message = f"Deleted {count} devices" if count else "No devices to delete"
    return DevicesDeleted(message=message, deleted_count=count)


async def names_of(session: AsyncSession, user_id: int, hwids: Sequence[str]) -> dict[str, str]:
    """The user's names of these devices (those that have one)."""
    if not hwids:
        return {}
    query = select(DeviceName).where(col(DeviceName.user_id) == user_id, col(DeviceName.hwid).in_(hwids))
    return {row.hwid: row.name for row in (await session.exec(query)).all()}


async def rename_device(session: AsyncSession, user_id: int, hwid: str, name: str | None) -> str | None:
    """Name a device for all of the user's subscriptions (its first 64 characters, trimmed);
    no name (null, empty, blanks) forgets it. Returns the name kept."""
    kept = (name or "").strip()[:NAME_LENGTH].strip()
    if not kept:
        await session.exec(
            delete(DeviceName).where(col(DeviceName.user_id) == user_id, col(DeviceName.hwid) == hwid)
        )
        return None
    table: sa.Table = DeviceName.__table__  # type: ignore[attr-defined]
    insert = (postgresql if session.get_bind().dialect.name == "postgresql" else sqlite).insert(table)
    values = {"name": kept, "updated_at": utcnow()}
    await session.exec(
        insert.values(user_id=user_id, hwid=hwid, **values).on_conflict_do_update(
            index_elements=["user_id", "hwid"], set_=values
        )
    )
    return kept

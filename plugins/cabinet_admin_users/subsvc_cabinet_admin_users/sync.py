"""The rules between our rows and the VPN panel's account of a user: finding the account,
what differs, and what of the panel's state the user's subscription takes (the subscriptions
plugin writes it); no HTTP here."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import PanelState, Subscription, SubscriptionSettings, SubscriptionStatus
from subsvc_users.api import User

from subsvc.api import from_attributes
from subsvc.db import utcnow
from subsvc.panel import GIB, PanelUser
from subsvc.services import services
from subsvc_cabinet_admin_users.lookup import admin_settings, admin_settings_for_change
from subsvc_cabinet_admin_users.panel import PanelGateway
from subsvc_cabinet_admin_users.schemas import PanelUserInfo, SyncFromPanelRequest, as_utc

END_DATE_TOLERANCE_SECONDS = 3600
TRAFFIC_USED_TOLERANCE_GB = 0.5


async def find_account(gateway: PanelGateway, session: AsyncSession, user: User) -> PanelUser | None:
    """The user's panel account: by the link the last sync recorded, else as the gateway finds it."""
    assert user.id is not None
    settings = await admin_settings(session, user.id)
    return await gateway.find_user(user, settings.panel_uuid if settings else None)


async def record_link(session: AsyncSession, user_id: int, panel_uuid: str | None) -> datetime:
    """Remember the panel account and the time of this sync."""
    row = await admin_settings_for_change(session, user_id)
    now = utcnow()
    if panel_uuid:
        row.panel_uuid = panel_uuid
    row.last_panel_sync = now
    row.updated_at = now
    await session.flush()
    return now


def gigabytes(count: int) -> float:
    return count / GIB if count else 0.0


def differences(subscription: Subscription | None, account: PanelUser) -> list[str]:
    """What differs between the subscription and the panel account, in words."""
    if subscription is None:
        return ["User has no subscription in the bot"]
    found: list[str] = []
    live = subscription.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIAL)
    if account.status and live != (account.status.upper() == "ACTIVE"):
        found.append(f"Status: bot={subscription.status}, panel={account.status}")
    if account.expire_at is not None:
        seconds = abs((as_utc(subscription.end_date) - as_utc(account.expire_at)).total_seconds())
        if seconds > END_DATE_TOLERANCE_SECONDS:
            found.append(f"End date differs by {seconds / 3600:.1f} hours")
    panel_limit = gigabytes(account.traffic_limit_bytes)
    if abs(subscription.traffic_limit_gb - panel_limit) > 1:
        found.append(f"Traffic limit: bot={subscription.traffic_limit_gb}GB, panel={panel_limit:.1f}GB")
    panel_used = gigabytes(account.used_traffic_bytes)
    if abs(subscription.traffic_used_gb - panel_used) > TRAFFIC_USED_TOLERANCE_GB:
        found.append(f"Traffic used: bot={subscription.traffic_used_gb:.2f}GB, panel={panel_used:.2f}GB")
    if subscription.device_limit != account.device_limit:
        found.append(f"Device limit: bot={subscription.device_limit}, panel={account.device_limit}")
    ours, theirs = set(subscription.connected_squads), set(account.active_squads)
    if ours != theirs:
        parts = []
        if ours - theirs:
            parts.append(f"only in bot: {len(ours - theirs)}")
        if theirs - ours:
            parts.append(f"only in panel: {len(theirs - ours)}")
        found.append(f"Squads mismatch ({', '.join(parts)})")
    return found


def account_info(account: PanelUser) -> PanelUserInfo:
    return from_attributes(
        PanelUserInfo,
        account,
        expire_at=as_utc(account.expire_at) if account.expire_at else None,
        traffic_limit_gb=gigabytes(account.traffic_limit_bytes),
        traffic_used_gb=gigabytes(account.used_traffic_bytes),
    )


def _status_from(account: PanelUser, now: datetime) -> str:
    expire = as_utc(account.expire_at) if account.expire_at else None
    if (account.status or "").upper() == "ACTIVE" and expire is not None and expire > now:
        return SubscriptionStatus.ACTIVE
    if expire is not None and expire <= now:
        return SubscriptionStatus.EXPIRED
    return SubscriptionStatus.DISABLED


def panel_state(
    subscription: Subscription, account: PanelUser, options: SyncFromPanelRequest, now: datetime
) -> PanelState:
    """What of the panel account the subscription takes, as the request's flags choose."""
    values: dict[str, Any] = {}
    if options.update_subscription:
        if account.expire_at is not None:
            values["end_date"] = as_utc(account.expire_at)
        values["status"] = _status_from(account, now)
        values["traffic_limit_gb"] = int(gigabytes(account.traffic_limit_bytes))
        if account.device_limit > 0:
            values["device_limit"] = account.device_limit
        if account.active_squads:
            values["connected_squads"] = list(account.active_squads)
        if account.subscription_url:
            values["subscription_url"] = account.subscription_url
    if options.update_traffic:
        used = gigabytes(account.used_traffic_bytes)
        if abs(subscription.traffic_used_gb - used) > 0.01:
            values["traffic_used_gb"] = used
    return PanelState(**values)


def apply_account(
    subscription: Subscription, account: PanelUser, options: SyncFromPanelRequest, now: datetime
) -> dict[str, Any]:
    """Have the subscription take the panel's state (marked synced); ``{field: {old, new}}``."""
    return subscriptions.take_panel_state(subscription, panel_state(subscription, account, options, now), now)


async def create_from_account(
    app: Starlette, session: AsyncSession, user: User, account: PanelUser, now: datetime
) -> Subscription:
    """A paid subscription shaped like the panel account (the days it has left, at least one)."""
    expire = as_utc(account.expire_at) if account.expire_at else now
    days = max(1, math.ceil((expire - now).total_seconds() / 86400))
    order = subscriptions.Order(
        days=days,
        traffic_limit_gb=int(gigabytes(account.traffic_limit_bytes)),
        device_limit=account.device_limit or None,
        connected_squads=list(account.active_squads) or None,
        replace_existing=True,
    )
    return await subscriptions.create_or_replace(
        session, services(app).events, SubscriptionSettings.of(app), user, order
    )

"""Our users and subscriptions as panel accounts: the account's name, the fields a
subscription writes, and how a user's account is found. Shared by every caller that writes
accounts (the gateways here, the synchronisation plugin)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.panel import GIB, PanelDevice, PanelUser, SubscriptionRequest
from subsvc_panel.client import PanelClient, PanelNotFound
from subsvc_panel.service import as_int

DISABLED_STATUSES = frozenset({"disabled"})
NEVER = datetime.min.replace(tzinfo=UTC)


def username_for(user: User) -> str:
    """The account name of a user: ``user_<messenger id>``, else ``user_id_<our id>``."""
    return f"user_{user.messenger_id}" if user.messenger_id is not None else f"user_id_{user.id}"


def description_for(user: User) -> str:
    name = " ".join(part for part in (user.first_name, user.last_name) if part)
    handle = f"@{user.username}" if user.username else ""
    return " ".join(part for part in (name, handle) if part)[:255]


def utc(moment: datetime) -> datetime:
    """The moment as an aware UTC datetime (a naive one is taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse_time(value: Any) -> datetime | None:
    """An ISO time of the panel (``Z`` or an offset) as an aware UTC datetime; ``None`` when
    it is missing or not a time."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return utc(parsed)


def subscription_fields(subscription: Subscription) -> dict[str, Any]:
    """What a subscription says about its account, spelled as the panel does:
    ``status`` (DISABLED for a disabled subscription, else ACTIVE: the panel expires and
    limits accounts itself), ``expireAt``, ``trafficLimitBytes`` (0 = unlimited),
    ``hwidDeviceLimit`` and ``activeInternalSquads``."""
    return {
        "status": "DISABLED" if subscription.status in DISABLED_STATUSES else "ACTIVE",
        "expireAt": utc(subscription.end_date).isoformat(),
        "trafficLimitBytes": int(subscription.traffic_limit_gb) * GIB,
        "hwidDeviceLimit": subscription.device_limit,
        "activeInternalSquads": list(subscription.connected_squads),
    }


def new_account_fields(user: User, subscription: Subscription) -> dict[str, Any]:
    """The body that creates the account of ``user`` for ``subscription``."""
    fields = {
        "username": username_for(user),
        "trafficLimitStrategy": "NO_RESET",
        "telegramId": user.messenger_id,
        "email": user.email,
        "description": description_for(user),
        **subscription_fields(subscription),
    }
    return {key: value for key, value in fields.items() if value is not None}


def squad_uuids(account: dict[str, Any]) -> list[str]:
    """The internal squads of an account (the panel lists ``{uuid, name}`` objects)."""
    found = account.get("activeInternalSquads") or []
    return [s["uuid"] if isinstance(s, dict) else str(s) for s in found if isinstance(s, dict | str)]


def traffic_of(account: dict[str, Any]) -> dict[str, Any]:
    """The account's traffic figures (newer panels nest them under ``userTraffic``)."""
    nested = account.get("userTraffic")
    return nested if isinstance(nested, dict) else account


def differences(account: dict[str, Any], wanted: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{field: {"old", "new"}}`` for each wanted field the account does not have yet."""
    changes: dict[str, dict[str, Any]] = {}
    for key, new in wanted.items():
        old: Any = account.get(key)
        if key == "activeInternalSquads":
            old = squad_uuids(account)
            if sorted(old) == sorted(new):
                continue
        elif key == "expireAt":
            if _same_moment(old, new):
                continue
        elif old == new:
            continue
        changes[key] = {"old": old, "new": new}
    return changes


def _same_moment(old: Any, new: Any) -> bool:
    try:
        a = datetime.fromisoformat(str(old).replace("Z", "+00:00"))
        b = datetime.fromisoformat(str(new).replace("Z", "+00:00"))
    except ValueError:
        return False
    return abs((utc(a) - utc(b)).total_seconds()) < 1


async def find_account(
    panel: PanelClient, user: User, panel_uuid: str | None = None
) -> dict[str, Any] | None:
    """The user's account: by the uuid we keep (when given and the panel still has it), else
    by messenger id, else by e-mail; ``None`` when the panel has none."""
    if panel_uuid:
        try:
            return await panel.user(panel_uuid)
        except PanelNotFound:
            pass
    if user.messenger_id is not None:
        found = await panel.users_by_messenger_id(user.messenger_id)
        if found:
            return found[0]
    if user.email:
        found = await panel.users_by_email(user.email)
        if found:
            return found[0]
    return None


def panel_user(account: dict[str, Any]) -> PanelUser:
    """The client's account as the port's :class:`subsvc.panel.PanelUser`."""
    traffic = traffic_of(account)
    found = account.get("lastConnectedNode")
    node: dict[str, Any] = found if isinstance(found, dict) else {}
    happ = account.get("happ")
    return PanelUser(
        uuid=str(account.get("uuid") or ""),
        short_uuid=account.get("shortUuid"),
        username=account.get("username"),
        status=account.get("status"),
        expire_at=parse_time(account.get("expireAt")),
        traffic_limit_bytes=as_int(account.get("trafficLimitBytes")),
        used_traffic_bytes=as_int(traffic.get("usedTrafficBytes")),
        lifetime_used_traffic_bytes=as_int(traffic.get("lifetimeUsedTrafficBytes")),
        device_limit=as_int(account.get("hwidDeviceLimit")),
        subscription_url=account.get("subscriptionUrl"),
        happ_link=happ.get("cryptoLink") if isinstance(happ, dict) else None,
        active_squads=squad_uuids(account),
        trojan_password=account.get("trojanPassword"),
        vless_uuid=account.get("vlessUuid"),
        ss_password=account.get("ssPassword"),
        first_connected_at=parse_time(traffic.get("firstConnectedAt")),
        online_at=parse_time(traffic.get("onlineAt")),
        last_connected_node_uuid=traffic.get("lastConnectedNodeUuid"),
        last_connected_node_name=node.get("nodeName"),
    )


def panel_device(device: dict[str, Any]) -> PanelDevice:
    """One device of the client's list as the port's :class:`subsvc.panel.PanelDevice`."""
    return PanelDevice(
        hwid=str(device.get("hwid") or ""),
        platform=str(device.get("platform") or ""),
        device_model=str(device.get("deviceModel") or ""),
        created_at=device.get("createdAt"),
    )


async def devices_of(panel: PanelClient, panel_uuid: str) -> list[PanelDevice]:
    """The account's devices in the panel's order; none for an account the panel does not know."""
    try:
        found = await panel.user_devices(panel_uuid)
    except PanelNotFound:
        return []
    return [panel_device(device) for device in found]


async def delete_all_devices(panel: PanelClient, panel_uuid: str) -> int:
    """Forget every device of the account (one call, only when it has any); how many there were."""
    count = len(await devices_of(panel, panel_uuid))
    if count:
        await panel.delete_all_user_devices(panel_uuid)
    return count


def subscription_request(record: dict[str, Any]) -> SubscriptionRequest:
    """One record of the panel's request log as the port's :class:`subsvc.panel.SubscriptionRequest`."""
    ip, agent = record.get("requestIp"), record.get("userAgent")
    return SubscriptionRequest(
        id=as_int(record.get("id")),
        request_at=parse_time(record.get("requestAt")),
        request_ip=ip if isinstance(ip, str) else None,
        user_agent=agent if isinstance(agent, str) else None,
    )


async def request_history_of(panel: PanelClient, panel_uuid: str) -> list[SubscriptionRequest]:
    """The account's subscription-link requests, newest first; none for an account the
    panel does not know."""
    try:
        found = await panel.user_subscription_requests(panel_uuid)
    except PanelNotFound:
        return []
    requests = [subscription_request(record) for record in found]
    return sorted(requests, key=lambda r: (r.request_at or NEVER, r.id), reverse=True)

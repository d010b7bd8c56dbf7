"""What the panel endpoints do, once for both areas; no HTTP in here.

Each function takes the :class:`PanelClient` and answers plain values; panel failures
escape as :class:`PanelError` (answered 502/503 by the plugin's ``handle_exception``), an
unknown node or squad as :class:`NotFound` (404 with its text).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from subsvc.panel import GIB
from subsvc_panel.client import (
    PanelClient,
    PanelError,
    PanelNotConfigured,
    PanelNotFound,
    PanelUnavailable,
    parse_bytes,
)
from subsvc_panel.schemas import (
    Bandwidth,
    ConnectionStatus,
    NodeInfo,
    NodesOverview,
    NodeStatisticsResponse,
    NodeUserUsage,
    PanelStatusResponse,
    ServerInfo,
    SystemStatsResponse,
    SystemSummary,
    TrafficPeriod,
    TrafficPeriods,
)

T = TypeVar("T")
NODE_NOT_FOUND = "Node not found"
SQUAD_NOT_FOUND = "Squad not found"
STATS_FAILED = "Failed to get VPN panel statistics"
PERIOD_KEYS = {
    "last_2_days": "bandwidthLastTwoDays",
    "last_7_days": "bandwidthLastSevenDays",
    "last_30_days": "bandwidthLast30Days",
    "current_month": "bandwidthCalendarMonth",
    "current_year": "bandwidthCurrentYear",
}


class NotFound(LookupError):
    """The panel does not know the node or squad; the message is the answer (404)."""


@dataclass(frozen=True)
class Failed:
    """A tolerated sub-call failure."""

    error: PanelError


def as_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(float(value))
        except ValueError:
            return 0
    return 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


async def _tolerant(call: Awaitable[T]) -> T | Failed:
    try:
        return await call
    except PanelNotConfigured:
        raise
    except PanelError as exc:
        return Failed(exc)


# --- status ----------------------------------------------------------------------------------


async def status(panel: PanelClient) -> PanelStatusResponse:
    """Configured or not, and whether the panel answers (never raises)."""
    if not panel.configured:
        error = panel.configuration_error
        connection = ConnectionStatus(
            status="not_configured", message=error or "", api_url=panel.base_url or None
        )
        return PanelStatusResponse(is_configured=False, configuration_error=error, connection=connection)
    try:
        stats = await panel.system_stats()
    except PanelError as exc:
        connection = ConnectionStatus(
            status="error", message=exc.message, api_url=panel.base_url, status_code=exc.status
        )
    else:
        info = {
            "total_users": as_int(_dict(stats.get("users")).get("totalUsers")),
            "users_online": as_int(_dict(stats.get("onlineStats")).get("onlineNow")),
            "nodes_online": as_int(_dict(stats.get("nodes")).get("totalOnline")),
            "uptime_seconds": as_int(stats.get("uptime")),
        }
        connection = ConnectionStatus(
            status="connected",
            message="Connection OK",
            api_url=panel.base_url,
            status_code=200,
            system_info=info,
        )
    return PanelStatusResponse(is_configured=True, configuration_error=None, connection=connection)


# --- system statistics -----------------------------------------------------------------------


async def system_stats(panel: PanelClient) -> SystemStatsResponse:
    """The panel's figures, fetched live: each part that fails is zero or empty; when every
    call fails the panel is unavailable (:class:`PanelUnavailable`)."""
    if not panel.configured:
        raise PanelNotConfigured(panel.configuration_error or "")
    stats, bandwidth, realtime, weekly, nodes = await asyncio.gather(
        _tolerant(panel.system_stats()),
        _tolerant(panel.bandwidth_stats()),
        _tolerant(panel.nodes_realtime_usage()),
        _tolerant(panel.nodes_weekly_stats()),
        _tolerant(panel.nodes()),
    )
    parts = (stats, bandwidth, realtime, weekly, nodes)
    if all(isinstance(part, Failed) for part in parts):
        raise PanelUnavailable(STATS_FAILED)
    stats_d = stats if isinstance(stats, dict) else {}
    bandwidth_d = bandwidth if isinstance(bandwidth, dict) else {}
    realtime_l = realtime if isinstance(realtime, list) else []
    weekly_l = weekly if isinstance(weekly, list) else []
    nodes_l = nodes if isinstance(nodes, list) else None
    users, online = _dict(stats_d.get("users")), _dict(stats_d.get("onlineStats"))
    node_stats, cpu, memory = (
        _dict(stats_d.get("nodes")),
        _dict(stats_d.get("cpu")),
        _dict(stats_d.get("memory")),
    )
    users_online = as_int(online.get("onlineNow"))
    if nodes_l is not None:
        nodes_online = sum(1 for n in nodes_l if n.get("isConnected") and not n.get("isDisabled"))
    else:
        nodes_online = as_int(node_stats.get("totalOnline"))
    download = sum(as_int(n.get("downloadBytes")) for n in realtime_l)
    upload = sum(as_int(n.get("uploadBytes")) for n in realtime_l)
    counts = _dict(users.get("statusCounts"))
    return SystemStatsResponse(
        system=SystemSummary(
            users_online=users_online,
            total_users=as_int(users.get("totalUsers")),
            active_connections=users_online,
            nodes_online=nodes_online,
            total_nodes=len(nodes_l or []),
            users_last_day=as_int(online.get("lastDay")),
            users_last_week=as_int(online.get("lastWeek")),
            users_never_online=as_int(online.get("neverOnline")),
            total_user_traffic=parse_bytes(node_stats.get("totalBytesLifetime")),
        ),
        users_by_status={str(k): as_int(v) for k, v in counts.items()},
        server_info=ServerInfo(
            cpu_cores=as_int(cpu.get("cores")),
            cpu_physical_cores=as_int(cpu.get("physicalCores")),
            memory_total=as_int(memory.get("total")),
            memory_used=as_int(memory.get("used")),
            memory_free=as_int(memory.get("free")),
            memory_available=as_int(memory.get("available")),
            uptime_seconds=as_int(stats_d.get("uptime")),
        ),
        bandwidth=Bandwidth(
            realtime_download=download, realtime_upload=upload, realtime_total=download + upload
        ),
        traffic_periods=TrafficPeriods(
            **{ours: _period(_dict(bandwidth_d.get(theirs))) for ours, theirs in PERIOD_KEYS.items()}
        ),
        nodes_realtime=realtime_l,
        nodes_weekly=weekly_by_node(weekly_l),
        last_updated=datetime.now(UTC),
    )


def _period(found: dict[str, Any]) -> TrafficPeriod:
    difference = found.get("difference")
    return TrafficPeriod(
        current=parse_bytes(found.get("current")),
        previous=parse_bytes(found.get("previous")),
        difference=str(difference) if difference is not None else None,
    )


def weekly_by_node(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``[{name, total_bytes, days_data: [{date, bytes}]}]``, the busiest node first."""
    nodes: dict[str, dict[str, Any]] = {}
    for row in rows:
        name = str(row.get("nodeName") or "")
        node = nodes.setdefault(name, {"name": name, "total_bytes": 0, "days_data": []})
        value = parse_bytes(row.get("totalBytes"))
        node["total_bytes"] += value
        node["days_data"].append({"date": row.get("date"), "bytes": value})
    return sorted(nodes.values(), key=lambda node: node["total_bytes"], reverse=True)


# --- nodes -----------------------------------------------------------------------------------


def _total_ram(node: dict[str, Any], info: dict[str, Any]) -> str | None:
    """The older panels' ``totalRam`` text, else the host's ``memoryTotal`` bytes in GiB."""
    if node.get("totalRam") is not None:
        return str(node["totalRam"])
    total = info.get("memoryTotal")
    return f"{round(as_int(total) / GIB, 1):g} GiB" if total is not None else None


def node_info(node: dict[str, Any]) -> NodeInfo:
    """The panel's node as both areas answer it (the host's cpus and memory from ``system``
    on panels that no longer send ``cpuCount``, ``cpuModel`` and ``totalRam``)."""
    uptime = node.get("xrayUptime")
    system = node.get("system") if isinstance(node.get("system"), dict) else None
    info = _dict(system.get("info")) if system else {}
    provider = _dict(node.get("provider"))
    versions = node.get("versions")
    ips = node.get("ips")
    return NodeInfo(
        uuid=str(node.get("uuid") or ""),
        name=str(node.get("name") or ""),
        address=str(node.get("address") or ""),
        country_code=node.get("countryCode"),
        is_connected=bool(node.get("isConnected")),
        is_disabled=bool(node.get("isDisabled")),
        is_node_online=bool(node.get("isNodeOnline")),
        is_xray_running=bool(node.get("isXrayRunning")),
        users_online=node.get("usersOnline"),
        traffic_used_bytes=_int_or_none(node.get("trafficUsedBytes")),
        traffic_limit_bytes=_int_or_none(node.get("trafficLimitBytes")),
        last_status_change=node.get("lastStatusChange"),
        last_status_message=node.get("lastStatusMessage"),
        xray_uptime=str(uptime) if uptime is not None else None,
        is_traffic_tracking_active=bool(node.get("isTrafficTrackingActive")),
        traffic_reset_day=node.get("trafficResetDay"),
        notify_percent=node.get("notifyPercent"),
        consumption_multiplier=float(node.get("consumptionMultiplier") or 1.0),
        cpu_count=node.get("cpuCount", info.get("cpus")),
        cpu_model=node.get("cpuModel", info.get("cpuModel")),
        total_ram=_total_ram(node, info),
        created_at=node.get("createdAt"),
        updated_at=node.get("updatedAt"),
        provider_uuid=node.get("providerUuid"),
        provider_name=provider.get("name"),
        provider_favicon=provider.get("faviconLink"),
        versions={str(k): str(v) for k, v in versions.items()} if isinstance(versions, dict) else None,
        system=system,
        active_plugin_uuid=node.get("activePluginUuid"),
        ips=[ip for ip in ips if isinstance(ip, dict)] if isinstance(ips, list) else [],
    )


def _int_or_none(value: Any) -> int | None:
    return None if value is None else as_int(value)


async def nodes(panel: PanelClient) -> list[NodeInfo]:
    return [node_info(node) for node in await panel.nodes()]


async def node(panel: PanelClient, node_uuid: str) -> NodeInfo:
    try:
        return node_info(await panel.node(node_uuid))
    except PanelNotFound:
        raise NotFound(NODE_NOT_FOUND) from None


async def nodes_overview(panel: PanelClient) -> NodesOverview:
    found = await nodes(panel)
    online = sum(1 for n in found if n.is_connected and not n.is_disabled)
    disabled = sum(1 for n in found if n.is_disabled)
    return NodesOverview(
        total=len(found),
        online=online,
        offline=len(found) - online - disabled,
        disabled=disabled,
        total_users_online=sum(n.users_online or 0 for n in found),
        nodes=found,
    )


async def node_action(panel: PanelClient, node_uuid: str, action: str) -> NodeInfo:
    """Enable, disable or restart one node; the node after it."""
    try:
        return node_info(await panel.node_action(node_uuid, action))
    except PanelNotFound:
        raise NotFound(NODE_NOT_FOUND) from None


NODE_ACTION_DONE = {"enable": "Node enabled", "disable": "Node disabled", "restart": "Node restart requested"}


def _window(start: datetime | None, end: datetime | None, days: int = 7) -> tuple[datetime, datetime]:
    end = end or datetime.now(UTC)
    return start or end - timedelta(days=days), end


async def node_statistics(panel: PanelClient, node_uuid: str) -> NodeStatisticsResponse:
    """The node, its realtime figures and its users' traffic over the last week (parts that
    fail are empty)."""
    info = await node(panel, node_uuid)
    start, end = _window(None, None)
    realtime, history = await asyncio.gather(
        _tolerant(panel.nodes_realtime_usage()), _tolerant(users_on_node(panel, node_uuid, start, end))
    )
    mine = [r for r in realtime if r.get("nodeUuid") == node_uuid] if isinstance(realtime, list) else []
    usage = history if isinstance(history, list) else []
    return NodeStatisticsResponse(
        node=info, realtime=mine[0] if mine else None, usage_history=usage, last_updated=datetime.now(UTC)
    )


def _panel_id(row: dict[str, Any]) -> int | None:
    found = row.get("userId", row.get("id"))
    return found if isinstance(found, int) and not isinstance(found, bool) else None


async def users_on_node(
    panel: PanelClient, node_uuid: str, start: datetime, end: datetime
) -> list[NodeUserUsage]:
    """Each panel user's bytes on the node in the window, the most first. The panel's rows
    (per user and day) are added up; a row without the user's numeric id gets it from the
    panel's user list (read once, only then)."""
    totals: dict[str, NodeUserUsage] = {}
    for row in await panel.node_users_usage(node_uuid, start, end):
        key = str(row.get("userUuid") or row.get("username") or "")
        item = totals.setdefault(
            key, NodeUserUsage(user_id=_panel_id(row), username=row.get("username"), node_uuid=node_uuid)
        )
        item.total_bytes += as_int(row.get("total", row.get("totalBytes")))
    if any(item.user_id is None for item in totals.values()):
        ids = {str(user.get("uuid")): _panel_id(user) for user in await panel.all_users()}
        for key, item in totals.items():
            item.user_id = item.user_id if item.user_id is not None else ids.get(key)
    return sorted(totals.values(), key=lambda item: (-item.total_bytes, item.username or ""))


async def node_usage(
    panel: PanelClient, node_uuid: str, start: datetime | None, end: datetime | None
) -> list[NodeUserUsage]:
    """Each user's traffic on the node in the window (default: the last week)."""
    await node(panel, node_uuid)
    start, end = _window(start, end)
    return await users_on_node(panel, node_uuid, start, end)


# --- squads and inbounds ---------------------------------------------------------------------


def squad_fields(squad: dict[str, Any]) -> dict[str, Any]:
    """The panel's squad as ``uuid, name, members_count, inbounds_count, inbounds``."""
    info = _dict(squad.get("info"))
    inbounds = [i for i in squad.get("inbounds") or [] if isinstance(i, dict)]
    return {
        "uuid": str(squad.get("uuid") or ""),
        "name": str(squad.get("name") or ""),
        "members_count": as_int(info.get("membersCount")),
        "inbounds_count": as_int(info.get("inboundsCount", len(inbounds))),
        "inbounds": inbounds,
    }


async def squad(panel: PanelClient, squad_uuid: str) -> dict[str, Any]:
    try:
        return squad_fields(await panel.squad(squad_uuid))
    except PanelNotFound:
        raise NotFound(SQUAD_NOT_FOUND) from None


class ActionRefused(ValueError):
    """A squad action asked without what it needs; the message is the answer (400)."""


async def squad_action(
    panel: PanelClient, squad_uuid: str, action: str, name: str | None, inbound_uuids: list[str] | None
) -> str:
    """Do one squad action; the sentence that says what was done."""
    try:
        if action == "add_all_users":
            await panel.add_all_users_to_squad(squad_uuid)
            return "All users added to the squad"
        if action == "remove_all_users":
            await panel.remove_all_users_from_squad(squad_uuid)
            return "All users removed from the squad"
        if action == "delete":
            await panel.delete_squad(squad_uuid)
            return "Squad deleted"
        if action == "rename":
            if not name or not name.strip():
                raise ActionRefused("Name is required for rename")
            await panel.update_squad(squad_uuid, name=name.strip())
            return "Squad renamed"
        if inbound_uuids is None:
            raise ActionRefused("inbound_uuids is required for update_inbounds")
        await panel.update_squad(squad_uuid, inbound_uuids=inbound_uuids)
        return "Squad inbounds updated"
    except PanelNotFound:
        raise NotFound(SQUAD_NOT_FOUND) from None


async def update_squad(
    panel: PanelClient, squad_uuid: str, name: str | None, inbound_uuids: list[str] | None
) -> dict[str, Any]:
    """Rename and/or set the inbounds; the squad after it."""
    if name is None and inbound_uuids is None:
        return await squad(panel, squad_uuid)
    try:
        return squad_fields(await panel.update_squad(squad_uuid, name=name, inbound_uuids=inbound_uuids))
    except PanelNotFound:
        raise NotFound(SQUAD_NOT_FOUND) from None


async def delete_squad(panel: PanelClient, squad_uuid: str) -> None:
    try:
        await panel.delete_squad(squad_uuid)
    except PanelNotFound:
        raise NotFound(SQUAD_NOT_FOUND) from None


async def inbounds(panel: PanelClient) -> list[dict[str, Any]]:
    return await panel.inbounds()


def gib(value: int) -> float:
    return round(value / GIB, 2)

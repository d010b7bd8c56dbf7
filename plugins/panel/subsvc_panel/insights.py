"""The panel's own figures for the cabinet administrators (4.1.0): the panel's health, its
recap, the users' devices, the top consumers, subscription requests by app, and the node
geo-check (a job the panel runs in the background; polled by its id). No HTTP in here."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from subsvc_panel.client import PanelClient, PanelNotFound, parse_bytes
from subsvc_panel.schemas import (
    AppCount,
    DevicesStatsResponse,
    DeviceTopUser,
    GeocheckImage,
    GeocheckJobResponse,
    GeocheckResult,
    HealthResponse,
    PlatformCount,
    RecapResponse,
    RecapThisMonth,
    RecapTotal,
    TopConsumer,
    TopConsumersResponse,
)
from subsvc_panel.service import NODE_NOT_FOUND, NotFound, as_int

JOB_NOT_FOUND = "Geocheck job not found"
NODE_CALLS_AT_ONCE = 5


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _rows(value: Any) -> list[dict[str, Any]]:
    return [row for row in value if isinstance(row, dict)] if isinstance(value, list) else []


def _float(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


async def health(panel: PanelClient) -> HealthResponse:
    processes = await panel.system_health()
    first = processes[0] if processes else {}
    instance = first.get("instanceId")
    return HealthResponse(
        instances=len(processes),
        rss_bytes=sum(as_int(p.get("rss")) for p in processes),
        heap_used_bytes=sum(as_int(p.get("heapUsed")) for p in processes),
        heap_total_bytes=sum(as_int(p.get("heapTotal")) for p in processes),
        event_loop_delay_ms=max((_float(p.get("eventLoopDelayMs")) for p in processes), default=0),
        event_loop_p99_ms=max((_float(p.get("eventLoopP99Ms")) for p in processes), default=0),
        uptime_seconds=max((as_int(p.get("uptime")) for p in processes), default=0),
        instance_id=str(instance) if instance is not None else None,
    )


async def recap(panel: PanelClient) -> RecapResponse:
    found = await panel.system_recap()
    total, month = _dict(found.get("total")), _dict(found.get("thisMonth"))
    init = found.get("initDate")
    return RecapResponse(
        version=str(found["version"]) if found.get("version") is not None else None,
        init_date=str(init) if init is not None else None,
        total=RecapTotal(
            users=as_int(total.get("users")),
            nodes=as_int(total.get("nodes")),
            traffic_bytes=parse_bytes(total.get("traffic")),
            nodes_ram_bytes=parse_bytes(total.get("nodesRam")),
            nodes_cpu_cores=as_int(total.get("nodesCpuCores")),
            distinct_countries=as_int(total.get("distinctCountries")),
        ),
        this_month=RecapThisMonth(
            users=as_int(month.get("users")), traffic_bytes=parse_bytes(month.get("traffic"))
        ),
    )


def _apps(rows: Any) -> list[AppCount]:
    return [AppCount(app=str(r.get("app") or "Unknown"), count=as_int(r.get("count"))) for r in _rows(rows)]


async def devices(panel: PanelClient) -> DevicesStatsResponse:
    found = await panel.devices_stats()
    stats = _dict(found.get("stats"))
    return DevicesStatsResponse(
        by_platform=[
            PlatformCount(platform=str(r.get("platform") or "Unknown"), count=as_int(r.get("count")))
            for r in _rows(found.get("byPlatform"))
        ],
        by_app=_apps(found.get("byApp")),
        top_users=[
            DeviceTopUser(username=str(r.get("username") or ""), devices_count=as_int(r.get("devicesCount")))
            for r in _rows(found.get("topUsers"))
        ],
        total_unique_devices=as_int(stats.get("totalUniqueDevices")),
        total_hwid_devices=as_int(stats.get("totalHwidDevices")),
        average_devices_per_user=_float(stats.get("averageHwidDevicesPerUser")),
    )


async def subscription_requests(panel: PanelClient) -> list[AppCount]:
    return _apps((await panel.subscription_request_stats()).get("byParsedApp"))


async def top_consumers(panel: PanelClient, days: int, limit: int) -> TopConsumersResponse:
    """Every node's users over the last ``days`` days, added up per user; the ``limit`` who
    used the most (ties by name)."""
    end = datetime.now(UTC)
    start = end - timedelta(days=days)
    gate = asyncio.Semaphore(NODE_CALLS_AT_ONCE)

    async def usage(node_uuid: str) -> list[dict[str, Any]]:
        async with gate:
            return await panel.node_users_usage(node_uuid, start, end)

    nodes = [str(node.get("uuid") or "") for node in await panel.nodes()]
    totals: dict[str, int] = {}
    for rows in await asyncio.gather(*(usage(uuid) for uuid in nodes)):
        for row in rows:
            name = str(row.get("username") or row.get("userUuid") or "")
            totals[name] = totals.get(name, 0) + as_int(row.get("total", row.get("totalBytes")))
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return TopConsumersResponse(
        period_days=days, users=[TopConsumer(username=name, total_bytes=total) for name, total in ranked]
    )


async def start_geocheck(panel: PanelClient, node_uuid: str, ip: str | None, interface: str | None) -> str:
    try:
        return await panel.start_geocheck(node_uuid, ip, interface)
    except PanelNotFound:
        raise NotFound(NODE_NOT_FOUND) from None


async def geocheck(panel: PanelClient, job_id: str) -> GeocheckJobResponse:
    try:
        found = await panel.geocheck_job(job_id)
    except PanelNotFound:
        raise NotFound(JOB_NOT_FOUND) from None
    result = found.get("result") if isinstance(found.get("result"), dict) else None
    return GeocheckJobResponse(
        job_id=job_id,
        is_completed=bool(found.get("isCompleted")),
        is_failed=bool(found.get("isFailed")),
        result=_result(result) if result is not None else None,
    )


def _result(found: dict[str, Any]) -> GeocheckResult:
    image = _dict(found.get("image"))
    report = found.get("rawReport")
    return GeocheckResult(
        success=bool(found.get("success")),
        node_uuid=found.get("nodeUuid"),
        image=GeocheckImage(
            format=str(image.get("format") or ""),
            media_type=str(image.get("mediaType") or ""),
            encoding=str(image.get("encoding") or ""),
            data=str(image.get("data") or ""),
        )
        if image
        else None,
        raw_report=report if isinstance(report, dict) else None,
        message=found.get("message"),
    )

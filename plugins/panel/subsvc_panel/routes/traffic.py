"""Cabinet administrators (access JWT with `traffic:read` / `traffic:export`), tag
`Admin Traffic`: every subscribed user's traffic per panel node over a window of days."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import User

from subsvc.api import HTTPError, Query, Router
from subsvc.auth.principal import Principal
from subsvc.services import services
from subsvc_panel import traffic
from subsvc_panel.routes.common import PANEL_FAILURES, TRAFFIC_EXPORT, TRAFFIC_READ, panel
from subsvc_panel.schemas import (
    ExportCsvRequest,
    ExportCsvResponse,
    TrafficEnrichmentResponse,
    TrafficUsageResponse,
)

TAG = "Admin Traffic"
router = Router(area="cabinet-admin", tag=TAG, prefix="/cabinet/admin/traffic")
NO_CHAT = "Your account has no messenger chat to send the report to"


def _window(period: int, start_date: str | None, end_date: str | None) -> traffic.Window:
    """The report's days (see :func:`traffic.window`); a bad date is a 400."""
    try:
        return traffic.window(period, start_date or None, end_date or None)
    except traffic.BadWindow as exc:
        raise HTTPError(400, str(exc)) from None


async def _report_chat(session: AsyncSession, principal: Principal) -> int:
    """The administrator's messenger chat (from the token, else their user); 400 without one."""
    chat_id = principal.claims.get("messenger_id")
    if not isinstance(chat_id, int) and principal.kind == "user":
        admin = await session.get(User, principal.id)
        chat_id = admin.messenger_id if admin is not None else None
    if not isinstance(chat_id, int):
        raise HTTPError(400, NO_CHAT)
    return chat_id


@router.get("", permission=TRAFFIC_READ, responses={400: traffic.BAD_DATE, **PANEL_FAILURES})
async def get_traffic_usage(
    request: Request,
    session: AsyncSession,
    period: Annotated[int, Query(ge=1, le=30)] = 30,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0)] = 0,
    search: Annotated[str, Query(max_length=100)] = "",
    sort_by: Annotated[str, Query(max_length=100)] = "total_bytes",
    sort_desc: bool = True,
    tariffs: Annotated[str, Query(max_length=500)] = "",
    statuses: Annotated[str, Query(max_length=500)] = "",
    nodes: Annotated[str, Query(max_length=2000)] = "",
    start_date: Annotated[str, Query(max_length=10)] = "",
    end_date: Annotated[str, Query(max_length=10)] = "",
) -> TrafficUsageResponse:
    """Each subscribed user's bytes per node over the last `period` days (or `start_date`
    to `end_date`, YYYY-MM-DD); `tariffs`, `statuses` and `nodes` are comma lists; `sort_by`
    a field or a node uuid."""
    span = _window(period, start_date, end_date)
    filters = traffic.Filters.parse(tariffs, statuses, nodes, search)
    found = await traffic.report(request.app, session, panel(request), span, filters)
    ordered = traffic.sort(found.items, sort_by, sort_desc)
    return TrafficUsageResponse(
        items=ordered[offset : offset + limit],
        nodes=found.nodes,
        total=len(ordered),
        offset=offset,
        limit=limit,
        period_days=span.days,
        available_tariffs=found.tariffs,
        available_statuses=found.statuses,
    )


@router.get("/enrichment", permission=TRAFFIC_READ, responses=PANEL_FAILURES)
async def get_traffic_enrichment(request: Request, session: AsyncSession) -> TrafficEnrichmentResponse:
    """Per user id: devices connected, kopeks spent on subscriptions, subscription dates and
    the last node used."""
    return TrafficEnrichmentResponse(data=await traffic.enrichment(request.app, session, panel(request)))


@router.post("/export-csv", permission=TRAFFIC_EXPORT, responses={400: NO_CHAT, **PANEL_FAILURES})
async def export_traffic_csv(
    request: Request, session: AsyncSession, principal: Principal, payload: ExportCsvRequest
) -> ExportCsvResponse:
    """Build the report as CSV (cells guarded against formulas) and send it to the
    administrator's messenger chat as a document."""
    chat_id = await _report_chat(session, principal)
    span = _window(payload.period, payload.start_date, payload.end_date)
    filters = traffic.Filters.parse(payload.tariffs, payload.statuses, payload.nodes)
    found = await traffic.report(request.app, session, panel(request), span, filters)
    text = traffic.csv_text(found, payload.total_threshold_gb, payload.node_threshold_gb)
    name = f"traffic_{span.start.date().isoformat()}_{span.end.date().isoformat()}.csv"
    caption = f"Traffic report: {len(found.items)} users, {span.days} days"
    await services(request.app).messenger.send_document_file(chat_id, name, text.encode(), caption=caption)
    return ExportCsvResponse(success=True, message=f"CSV report with {len(found.items)} users sent")

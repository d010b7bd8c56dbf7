"""Tag `Admin RBAC Audit Log`: the audit log, filtered, as pages or a CSV file."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api import Query, Router
from subsvc_rbac import audit_log
from subsvc_rbac.gate import rbac_of
from subsvc_rbac.routes import PREFIX
from subsvc_rbac.schemas import AuditLogListResponse

router = Router(area="cabinet-admin", tag="Admin RBAC Audit Log", prefix=PREFIX)
PageLimit = Annotated[int, Query(ge=1, le=500)]
ExportLimit = Annotated[int, Query(ge=1, le=50_000)]
Offset = Annotated[int, Query(ge=0)]
Filters = Annotated[audit_log.AuditFilter, Query()]


@router.get("/audit-log", permission="audit_log:read")
async def list_audit_logs(
    request: Request, session: AsyncSession, filters: Filters, limit: PageLimit = 50, offset: Offset = 0
) -> AuditLogListResponse:
    """Audit rows, newest first: `user_id`, `action` (contains, any case), `resource_type`,
    `status` (`success`, `denied`), `date_from` / `date_to` (inclusive; no offset = UTC)."""
    await rbac_of(request.app).audit.flush()  # this instance's queued rows, this call's included
    conditions = filters.conditions()
    if conditions is None:
        return AuditLogListResponse(items=[], total=0, limit=limit, offset=offset)
    items = await audit_log.entries(session, conditions, limit, offset)
    total = offset + len(items) if 0 < len(items) < limit else await audit_log.count(session, conditions)
    return AuditLogListResponse(items=items, total=total, limit=limit, offset=offset)


@router.get("/audit-log/export", permission="audit_log:export")
async def export_audit_logs(
    request: Request, session: AsyncSession, filters: Filters, limit: ExportLimit = 10_000
) -> Response:
    """The filtered rows (newest first, at most `limit`) as a CSV attachment
    `audit_log_YYYYMMDD_HHMMSS.csv`; cells that would start a spreadsheet formula
    (`=`, `+`, `-`, `@`, tab, CR) get a leading `'`."""
    await rbac_of(request.app).audit.flush()
    conditions = filters.conditions()
    items = [] if conditions is None else await audit_log.entries(session, conditions, limit, 0)
    name = f"audit_log_{datetime.now(UTC):%Y%m%d_%H%M%S}.csv"
    return Response(
        audit_log.to_csv(items),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )

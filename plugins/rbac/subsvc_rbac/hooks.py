"""The rbac plugin's runtime hooks: the gate and audit writer start and stop with the app,
cabinet users' permissions are decided here, and users' grants are read for core."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request

from subsvc.auth.principal import Grants, Principal
from subsvc.db import is_database_unavailable
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_rbac import auditing, gate, seed
from subsvc_rbac.auditing import AuditWriter
from subsvc_rbac.grants import GrantsCache, read_standing
from subsvc_rbac.settings import RbacSettings

log = logging.getLogger("subsvc.rbac")


@hookimpl
async def startup(app: Starlette) -> None:
    kernel = services(app)
    settings = RbacSettings.of(app)
    audit_writer = AuditWriter(
        kernel.db,
        flush_seconds=settings.RBAC_AUDIT_FLUSH_SECONDS,
        batch_size=settings.RBAC_AUDIT_BATCH_SIZE,
        max_pending=settings.RBAC_AUDIT_MAX_PENDING,
    )
    grants = GrantsCache(kernel.db, kernel.bus, settings.RBAC_GRANTS_CACHE_SECONDS)
    app.state.rbac = gate.Rbac(settings=settings, grants=grants, audit=audit_writer)
    await audit_writer.start()
    kernel.events.subscribe("user.created", functools.partial(seed.on_user_created, app))
    try:
        for row in await seed.seed(kernel.db, kernel.settings):
            audit_writer.add(row)
    except Exception as exc:
        if not is_database_unavailable(exc):
            raise
        log.warning(
            "database unavailable at start: system roles and superadmins are synced at the next start"
        )


@hookimpl
async def shutdown(app: Starlette) -> None:
    rbac = gate.rbac_of(app)
    await rbac.grants.drain()
    await rbac.audit.stop()
    await auditing.close_client_ip_helper(app)


@hookimpl
def permission_allowed(
    principal: Principal, permission: str, request: Request | None
) -> Awaitable[bool] | None:
    """Decide for cabinet users (API tokens are left to core); queue the audit row."""
    if principal.kind != "user" or request is None:
        return None
    return gate.check(request, principal, permission)


@hookimpl
def user_grants(session: AsyncSession, user_id: int) -> Awaitable[Grants]:
    async def grants() -> Grants:
        return (await read_standing(session, user_id)).grants()

    return grants()

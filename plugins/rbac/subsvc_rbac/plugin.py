"""Plugin `rbac`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from pydantic_settings import BaseSettings
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request

from subsvc.api import Endpoint
from subsvc.auth.principal import Grants, Principal
from subsvc.db import is_database_unavailable
from subsvc.hookspecs import hookimpl
from subsvc_rbac import __version__, auditing, gate, seed
from subsvc_rbac.auditing import AuditWriter
from subsvc_rbac.grants import GrantsCache, read_standing
from subsvc_rbac.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_rbac.models import AccessPolicy, AdminRole, AuditLogEntry, UserRole
from subsvc_rbac.registry import OWN_PERMISSIONS
from subsvc_rbac.routes import audit, policies, roles
from subsvc_rbac.settings import RbacSettings

PLUGIN_NAME = "rbac"
REQUIRES = ("users",)
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"
log = logging.getLogger("subsvc.rbac")

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return RbacSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [AdminRole, UserRole, AccessPolicy, AuditLogEntry]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*roles.router.endpoints, *policies.router.endpoints, *audit.router.endpoints]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return OWN_PERMISSIONS


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {
            "name": "Admin RBAC",
            "description": "Roles, their holders and assignments; the permission registry.",
        },
        {
            "name": "Admin RBAC Policies",
            "description": "Access policies: deny by UTC time range or IP allow-list.",
        },
        {"name": "Admin RBAC Audit Log", "description": "Every permission-checked admin call; CSV export."},
    ]


@hookimpl
async def startup(app: Starlette) -> None:
    state: Any = app.state
    settings = cast(RbacSettings, state.settings_of["rbac"])
    audit_writer = AuditWriter(
        state.db,
        flush_seconds=settings.RBAC_AUDIT_FLUSH_SECONDS,
        batch_size=settings.RBAC_AUDIT_BATCH_SIZE,
        max_pending=settings.RBAC_AUDIT_MAX_PENDING,
    )
    grants = GrantsCache(state.db, state.bus, settings.RBAC_GRANTS_CACHE_SECONDS)
    state.rbac = gate.Rbac(settings=settings, grants=grants, audit=audit_writer)
    await audit_writer.start()
    state.events.subscribe("user.created", functools.partial(seed.on_user_created, app))
    try:
        for row in await seed.seed(state.db, state.settings):
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

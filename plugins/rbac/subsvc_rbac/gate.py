"""The permission check of every cabinet admin call (the ``permission_allowed`` hook).

In order: administrators from ``ADMIN_IDS``/``ADMIN_EMAILS`` pass; a user without effective
roles is refused ("No active roles assigned"); a permission no role's pattern covers is
refused ("Permission not granted by any role"); an applicable deny policy refuses ("Denied by
policy: <name>"). A refusal is 403 ``Permission denied: <reason>``. Either way one audit row
is queued.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc.auth.permissions import any_matches
from subsvc.auth.principal import Principal
from subsvc.db import utcnow
from subsvc_rbac import auditing
from subsvc_rbac.auditing import AuditWriter
from subsvc_rbac.grants import GrantsCache, Standing
from subsvc_rbac.policies import denying_policy
from subsvc_rbac.settings import RbacSettings

NO_ROLES = "No active roles assigned"
NOT_GRANTED = "Permission not granted by any role"


@dataclass
class Rbac:
    """The plugin's runtime objects of one app (``app.state.rbac``)."""

    settings: RbacSettings
    grants: GrantsCache
    audit: AuditWriter


def rbac_of(app: Starlette) -> Rbac:
    rbac: Rbac = app.state.rbac
    return rbac


async def decide(rbac: Rbac, principal: Principal, permission: str, client_ip: str | None) -> str | None:
    """``None`` when ``principal`` may use ``permission``, else the reason it may not."""
    if principal.is_admin:
        return None
    standing: Standing = await rbac.grants.standing(principal.id)
    if not standing.permissions:
        return NO_ROLES
    if not any_matches(standing.permissions, permission):
        return NOT_GRANTED
    policy = denying_policy(await rbac.grants.policies(), standing.role_ids, permission, utcnow(), client_ip)
    return f"Denied by policy: {policy.name}" if policy is not None else None


async def check(request: Request, principal: Principal, permission: str) -> bool:
    """Allow (``True``) or raise 403, queueing the audit row either way."""
    rbac = rbac_of(request.app)
    reason = await decide(rbac, principal, permission, auditing.client_ip(request))
    body_limit = rbac.settings.RBAC_AUDIT_BODY_MAX_BYTES
    try:
        entry = await auditing.request_row(
            request, principal, permission, denied_reason=reason, body_max_bytes=body_limit
        )
    except Exception:  # the body could not be read (too large, client gone): record the call anyway
        rbac.audit.add(await auditing.request_row(request, principal, permission, body_max_bytes=-1))
        raise
    rbac.audit.add(entry)
    if reason is not None:
        raise HTTPError(403, f"Permission denied: {reason}")
    return True

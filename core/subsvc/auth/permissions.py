"""Permission identifiers (`section:action`, with `*` wildcards) and the check every
protected endpoint runs."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request

from subsvc.api.errors import HTTPError
from subsvc.auth.principal import Grants, Principal


def permission_matches(granted: str, wanted: str) -> bool:
    """Does a granted pattern (``users:*``, ``*:*``, ``users:read``) cover ``wanted``?"""
    return fnmatch.fnmatchcase(wanted, granted)


def any_matches(granted: Iterable[str], wanted: str) -> bool:
    return any(permission_matches(pattern, wanted) for pattern in granted)


def build_registry(contributions: Iterable[Mapping[str, Sequence[str]]]) -> dict[str, list[str]]:
    """Merge every plugin's ``register_permissions`` result: ``{section: [actions]}``."""
    registry: dict[str, list[str]] = {}
    for sections in contributions:
        for section, actions in sections.items():
            known = registry.setdefault(section, [])
            known.extend(action for action in actions if action not in known)
    return registry


async def check_permission(request: Request, principal: Principal, permission: str | None) -> None:
    """Raise 403 unless a ``permission_allowed`` hook allows it or the principal is an
    administrator. Web API tokens (no roles) pass checks outside the cabinet admin area."""
    decision = None
    if permission is not None:
        decision = await request.app.state.plugins.first_result(
            "permission_allowed", principal=principal, permission=permission, request=request
        )
    if decision is None:
        decision = principal.is_admin or principal.kind == "api_token"
    if not decision:
        raise HTTPError(403, "Insufficient permissions" if permission else "Admin access required")


async def user_grants(app: Starlette, session: AsyncSession, user_id: int) -> Grants:
    """The ``user_grants`` hook's answer for a cabinet user, or no grants when none answers."""
    grants = await app.state.plugins.first_result("user_grants", session=session, user_id=user_id)
    return grants if isinstance(grants, Grants) else Grants()

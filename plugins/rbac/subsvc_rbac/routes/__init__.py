"""Cabinet admin API of the rbac plugin (`/cabinet/admin/rbac/...`, access JWT + permission).
The rules' refusals (:class:`~subsvc_rbac.service.RbacError`) are answered as ``plugin.py``
declares them (the session rolls back)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.auth.principal import Principal
from subsvc_rbac import service
from subsvc_rbac.gate import rbac_of

PREFIX = "/cabinet/admin/rbac"


async def acting(
    request: Request, session: AsyncSession, principal: Principal, *, regrants: bool = True
) -> service.Actor:
    """The caller as the actor of a change, read in the change's transaction. A change that
    may alter what somebody holds (``regrants``) makes every instance forget its cached grants
    once the transaction commits."""
    actor = await service.actor_of(session, principal)
    if regrants:
        rbac_of(request.app).grants.invalidate_on_commit(session)
    return actor

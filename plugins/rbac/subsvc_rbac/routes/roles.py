"""Tag `Admin RBAC`: the permission registry, roles, role holders and assignments."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc.auth.principal import Principal
from subsvc_rbac import service
from subsvc_rbac.routes import PREFIX, acting
from subsvc_rbac.schemas import (
    AdminWithRolesResponse,
    AssignmentRevokedResponse,
    PermissionSection,
    RoleAssignRequest,
    RoleCreateRequest,
    RoleDeletedResponse,
    RoleResponse,
    RoleUpdateRequest,
    UserRoleResponse,
)

router = Router(area="cabinet-admin", tag="Admin RBAC", prefix=PREFIX)
ListLimit = Annotated[int, Query(ge=1, le=1000)]
ListOffset = Annotated[int, Query(ge=0)]


def _registry(request: Request) -> dict[str, list[str]]:
    """The permission registry core keeps (``app.state.permissions``)."""
    registry: dict[str, list[str]] = request.app.state.permissions
    return registry


@router.get("/permissions", permission="roles:read")
async def get_permission_registry(request: Request) -> list[PermissionSection]:
    """Every permission section and its actions, as the installed plugins register them
    (a role may also grant `section:*` and `*:*`)."""
    return [PermissionSection(section=s, actions=list(a)) for s, a in _registry(request).items()]


@router.get("/users", permission="roles:read")
async def list_rbac_users(
    session: AsyncSession, limit: ListLimit = 1000, offset: ListOffset = 0
) -> list[AdminWithRolesResponse]:
    """Users holding at least one effective role (active, unexpired, of an active role), by
    user id, with their role names (highest level first)."""
    return await service.list_admins(session, limit, offset)


@router.get("/roles", permission="roles:read")
async def list_roles(session: AsyncSession, include_inactive: bool = False) -> list[RoleResponse]:
    """Roles, highest level first, each with `user_count` (its effective assignments)."""
    return await service.role_responses(session, await service.list_roles(session, include_inactive))


@router.post(
    "/roles",
    status_code=201,
    permission="roles:create",
    responses={
        400: "Invalid permissions",
        403: "Level at or above your own, or permissions you do not hold",
        409: "Role with this name already exists",
    },
)
async def create_role(
    request: Request, session: AsyncSession, principal: Principal, payload: RoleCreateRequest
) -> RoleResponse:
    """Create a custom role (`is_system` false, active) below your own level, granting only
    permissions you hold."""
    actor = await acting(request, session, principal, regrants=False)  # nobody holds it yet
    return await service.role_response(
        session, await service.create_role(session, _registry(request), actor, payload)
    )


@router.put(
    "/roles/{role_id}",
    permission="roles:edit",
    responses={
        400: "Invalid permissions",
        403: "Role or level at or above your own, system role fields, permissions you do not hold",
        404: "Role not found",
        409: "Role with this name already exists",
    },
)
async def update_role(
    request: Request, session: AsyncSession, principal: Principal, role_id: int, payload: RoleUpdateRequest
) -> RoleResponse:
    """Change the fields sent. A system role keeps its level and stays active."""
    actor = await acting(request, session, principal)
    changes = payload.model_dump(exclude_unset=True)
    role = await service.update_role(session, _registry(request), actor, role_id, changes)
    return await service.role_response(session, role)


@router.delete(
    "/roles/{role_id}",
    permission="roles:delete",
    responses={403: "System role, or a role at or above your own level", 404: "Role not found"},
)
async def delete_role(
    request: Request, session: AsyncSession, principal: Principal, role_id: int
) -> RoleDeletedResponse:
    """Delete a custom role below your level, with its assignments and policies."""
    await service.delete_role(session, await acting(request, session, principal), role_id)
    return RoleDeletedResponse(role_id=role_id)


@router.get("/roles/{role_id}/users", permission="roles:read", responses={404: "Role not found"})
async def list_role_users(
    session: AsyncSession, role_id: int, limit: ListLimit = 1000, offset: ListOffset = 0
) -> list[UserRoleResponse]:
    """The role's active assignments, newest first (an expired one shows its `expires_at`)."""
    return await service.role_users(session, role_id, limit, offset)


@router.post(
    "/assignments",
    status_code=201,
    permission="roles:assign",
    responses={
        400: "expires_at is not in the future",
        403: "Superadmin, a role at or above your level, or permissions you do not hold",
        404: "Role not found, or Target user not found",
    },
)
async def assign_role(
    request: Request, session: AsyncSession, principal: Principal, payload: RoleAssignRequest
) -> UserRoleResponse:
    """Give a user (internal id) a role below your level whose permissions you hold; an
    earlier assignment of the pair, even revoked, is reactivated."""
    return await service.assign_role(session, await acting(request, session, principal), payload)


@router.delete(
    "/assignments/{assignment_id}",
    permission="roles:assign",
    responses={403: "Superadmin, or a role at or above your level", 404: "Role assignment not found"},
)
async def revoke_role(
    request: Request, session: AsyncSession, principal: Principal, assignment_id: int
) -> AssignmentRevokedResponse:
    """Deactivate an assignment (kept, with `revocation_source` `ui`)."""
    await service.revoke_assignment(session, await acting(request, session, principal), assignment_id)
    return AssignmentRevokedResponse(assignment_id=assignment_id)

"""The rules of roles, assignments and policies (no HTTP here).

Who may do what is decided by the caller's *management level*: 1000 for administrators from
the settings and for superadmins (level 999), else the highest level of their effective roles.
Nobody creates, edits, deletes, assigns or revokes a role at or above that level; nobody grants
a permission their own roles do not cover (superadmins hold everything); the Superadmin role
(level 999) is held only through ``ADMIN_IDS`` / ``ADMIN_EMAILS``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import User

from subsvc.api import fits_int32, from_attributes
from subsvc.auth.principal import Principal
from subsvc.db import utcnow
from subsvc.db.rows import Rows
from subsvc_rbac.grants import MANAGEMENT_CEILING, effective_assignment, management_level, read_standing
from subsvc_rbac.models import REVOKED_BY_UI, SUPERADMIN_LEVEL, AccessPolicy, AdminRole, UserRole
from subsvc_rbac.registry import invalid_permissions, not_held, unique
from subsvc_rbac.schemas import (
    AdminWithRolesResponse,
    PolicyCreateRequest,
    PolicyResponse,
    RoleAssignRequest,
    RoleCreateRequest,
    RoleResponse,
    UserRoleResponse,
)

ROLE_NOT_FOUND = "Role not found"
ROLE_NAME_TAKEN = "Role with this name already exists"
ASSIGNMENT_NOT_FOUND = "Role assignment not found"
POLICY_NOT_FOUND = "Policy not found"
REFERENCED_ROLE_NOT_FOUND = "Referenced role not found"
TARGET_USER_NOT_FOUND = "Target user not found"
SUPERADMIN_BY_SETTINGS = "The Superadmin role is granted only through ADMIN_IDS / ADMIN_EMAILS"


class RbacError(Exception):
    """A request the rules refuse: ``status`` and ``detail`` are the answer."""

    status = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFound(RbacError):
    status = 404


class Forbidden(RbacError):
    status = 403


class Conflict(RbacError):
    status = 409


@dataclass(frozen=True)
class Actor:
    """The caller of a management operation."""

    user_id: int
    level: int
    permissions: tuple[str, ...]

    @property
    def is_superadmin(self) -> bool:
        return self.level >= MANAGEMENT_CEILING


async def actor_of(session: AsyncSession, principal: Principal) -> Actor:
    """The caller's standing, read fresh in the operation's own transaction."""
    standing = await read_standing(session, principal.id)
    permissions = ("*:*",) if principal.is_admin else standing.permissions
    return Actor(principal.id, management_level(principal.is_admin, standing), permissions)


def _insert(session: AsyncSession, table: Any) -> Any:
    dialect = session.get_bind().dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(table)


# --- permissions ---------------------------------------------------------------------------------


def check_grantable(registry: Mapping[str, Sequence[str]], actor: Actor, permissions: Sequence[str]) -> None:
    """400 for unknown permissions; 403 for permissions the actor does not hold."""
    invalid = invalid_permissions(registry, permissions)
    if invalid:
        raise RbacError(f"Invalid permissions: {', '.join(invalid)}")
    if actor.is_superadmin:
        return
    missing = not_held(actor.permissions, permissions)
    if missing:
        raise Forbidden(f"You cannot grant permissions you do not hold: {', '.join(missing)}")


# --- roles -------------------------------------------------------------------------------------


async def find_role(session: AsyncSession, role_id: int) -> AdminRole | None:
    return await session.get(AdminRole, role_id) if fits_int32(role_id) else None


async def get_role(session: AsyncSession, role_id: int, message: str = ROLE_NOT_FOUND) -> AdminRole:
    role = await find_role(session, role_id)
    if role is None:
        raise NotFound(message)
    return role


async def _user_counts(session: AsyncSession, role_ids: Sequence[int]) -> dict[int, int]:
    if not role_ids:
        return {}
    now = utcnow()
    query = (
        select(col(UserRole.role_id), func.count())
        .where(
            col(UserRole.role_id).in_(role_ids),
            col(UserRole.is_active).is_(True),
            (col(UserRole.expires_at).is_(None)) | (col(UserRole.expires_at) > now),
        )
        .group_by(col(UserRole.role_id))
    )
    return {role_id: count for role_id, count in (await session.exec(query)).all()}


async def role_responses(session: AsyncSession, roles: Sequence[AdminRole]) -> list[RoleResponse]:
    """Roles with ``user_count`` (effective assignments), one grouped query for them all."""
    counts = await _user_counts(session, [role.id for role in roles if role.id is not None])
    return [
        RoleResponse.model_validate(role).model_copy(update={"user_count": counts.get(role.id or 0, 0)})
        for role in roles
    ]


async def role_response(session: AsyncSession, role: AdminRole) -> RoleResponse:
    (answer,) = await role_responses(session, [role])
    return answer


async def list_roles(session: AsyncSession, include_inactive: bool) -> list[AdminRole]:
    """Highest level first, then oldest first."""
    query = select(AdminRole).order_by(col(AdminRole.level).desc(), col(AdminRole.id))
    if not include_inactive:
        query = query.where(col(AdminRole.is_active).is_(True))
    return list((await session.exec(query)).all())


async def _check_name_free(session: AsyncSession, name: str, role_id: int | None = None) -> None:
    query = select(col(AdminRole.id)).where(col(AdminRole.name) == name)
    if role_id is not None:
        query = query.where(col(AdminRole.id) != role_id)
    if (await session.exec(query.limit(1))).first() is not None:
        raise Conflict(ROLE_NAME_TAKEN)


async def _flush_role(session: AsyncSession) -> None:
    try:
        await session.flush()
    except IntegrityError as exc:  # a concurrent request took the name
        if "name" in str(exc.orig).lower() or "unique" in str(exc.orig).lower():
            raise Conflict(ROLE_NAME_TAKEN) from None
        raise


async def create_role(
    session: AsyncSession, registry: Mapping[str, Sequence[str]], actor: Actor, data: RoleCreateRequest
) -> AdminRole:
    if data.level >= actor.level:
        raise Forbidden("Cannot create a role with level >= your own role level")
    permissions = unique(data.permissions)
    check_grantable(registry, actor, permissions)
    await _check_name_free(session, data.name)
    now = utcnow()
    role = AdminRole(
        **data.model_dump(exclude={"permissions"}),
        permissions=permissions,
        is_system=False,
        is_active=True,
        created_by=actor.user_id,
        created_at=now,
        updated_at=now,
    )
    session.add(role)
    await _flush_role(session)
    return role


NOT_NULL_ROLE_FIELDS = ("name", "level", "permissions", "is_active")


async def update_role(
    session: AsyncSession,
    registry: Mapping[str, Sequence[str]],
    actor: Actor,
    role_id: int,
    changes: dict[str, Any],
) -> AdminRole:
    """Change the fields sent (``changes``; a null name, level, permissions or is_active is
    ignored, a null description, color or icon clears it)."""
    role = await get_role(session, role_id)
    changes = {k: v for k, v in changes.items() if v is not None or k not in NOT_NULL_ROLE_FIELDS}
    if role.level >= actor.level:
        raise Forbidden("Cannot edit a role at or above your own level")
    if role.is_system:
        locked = [
            name
            for name in ("is_active", "level")
            if name in changes and changes[name] != getattr(role, name)
        ]
        if locked:
            raise Forbidden(f"Cannot change {', '.join(locked)} on a system role")
    if "level" in changes and changes["level"] >= actor.level:
        raise Forbidden("Cannot set role level >= your own role level")
    if "permissions" in changes:
        changes["permissions"] = unique(changes["permissions"])
        # only what is added is checked: a role keeps what it held (a system role's
        # preset may name sections no installed plugin registers)
        check_grantable(registry, actor, [p for p in changes["permissions"] if p not in role.permissions])
    if "name" in changes and changes["name"] != role.name:
        await _check_name_free(session, changes["name"], role.id)
    for name, value in changes.items():
        setattr(role, name, value)
    role.updated_at = utcnow()
    await _flush_role(session)
    return role


async def delete_role(session: AsyncSession, actor: Actor, role_id: int) -> None:
    """Delete a custom role with its assignments and policies."""
    role = await get_role(session, role_id)
    if role.is_system:
        raise Forbidden("Cannot delete a system role")
    if role.level >= actor.level:
        raise Forbidden("Cannot delete a role at or above your own level")
    await session.exec(delete(AccessPolicy).where(col(AccessPolicy.role_id) == role_id))
    await session.exec(delete(UserRole).where(col(UserRole.role_id) == role_id))
    await session.delete(role)
    await session.flush()


# --- assignments ---------------------------------------------------------------------------------


def _assignment_query() -> Rows:
    return (
        Rows(
            UserRole,
            col(AdminRole.name),
            col(User.messenger_id),
            col(User.username),
            col(User.first_name),
            col(User.email),
        )
        .join(AdminRole, col(AdminRole.id) == col(UserRole.role_id))
        .join(User, col(User.id) == col(UserRole.user_id))
    )


def _assignment_response(row: Any) -> UserRoleResponse:
    assignment, role_name, messenger_id, username, first_name, email = row
    return from_attributes(
        UserRoleResponse,
        assignment,
        role_name=role_name,
        user_messenger_id=messenger_id,
        user_username=username,
        user_first_name=first_name,
        user_email=email,
    )


async def assignments(
    session: AsyncSession, condition: ColumnElement[bool], limit: int | None = None, offset: int = 0
) -> list[UserRoleResponse]:
    query = (
        _assignment_query()
        .where(condition)
        .order_by(col(UserRole.assigned_at).desc(), col(UserRole.id).desc())
    )
    if limit is not None:
        query = query.offset(offset).limit(limit)
    return [_assignment_response(row) for row in (await session.exec(query)).all()]


async def role_users(session: AsyncSession, role_id: int, limit: int, offset: int) -> list[UserRoleResponse]:
    """The active assignments of a role (expired ones included, with their ``expires_at``)."""
    await get_role(session, role_id)
    condition = (col(UserRole.role_id) == role_id) & col(UserRole.is_active).is_(True)
    return await assignments(session, condition, limit, offset)


def _check_manageable(actor: Actor, role: AdminRole, verb: str) -> None:
    if role.level >= SUPERADMIN_LEVEL:
        raise Forbidden(SUPERADMIN_BY_SETTINGS)
    if role.level >= actor.level:
        raise Forbidden(f"Cannot {verb} a role at or above your own level")


async def assign_role(session: AsyncSession, actor: Actor, data: RoleAssignRequest) -> UserRoleResponse:
    """Give a user a role; an existing (even revoked) assignment of the pair is reactivated
    with the new expiry."""
    role = await get_role(session, data.role_id)
    _check_manageable(actor, role, "assign")
    if not actor.is_superadmin:
        missing = not_held(actor.permissions, role.permissions)
        if missing:
            raise Forbidden(f"You cannot grant permissions you do not hold: {', '.join(missing)}")
    if not fits_int32(data.user_id) or await session.get(User, data.user_id) is None:
        raise NotFound(TARGET_USER_NOT_FOUND)
    now = utcnow()
    if data.expires_at is not None and data.expires_at <= now:
        raise RbacError("expires_at must be in the future")
    values = {
        "assigned_by": actor.user_id,
        "assigned_at": now,
        "expires_at": data.expires_at,
        "is_active": True,
        "revocation_source": None,
    }
    statement = (
        _insert(session, UserRole)
        .values(user_id=data.user_id, role_id=role.id, **values)
        .on_conflict_do_update(index_elements=["user_id", "role_id"], set_=values)
        .returning(col(UserRole.id))
    )
    try:
        assignment_id = (await session.exec(statement)).scalar_one()
    except IntegrityError:  # the user was deleted meanwhile
        raise NotFound(TARGET_USER_NOT_FOUND) from None
    (answer,) = await assignments(session, col(UserRole.id) == assignment_id)
    return answer


async def revoke_assignment(session: AsyncSession, actor: Actor, assignment_id: int) -> None:
    """Deactivate an assignment (``revocation_source = 'ui'``); revoking twice is no error."""
    assignment = await session.get(UserRole, assignment_id) if fits_int32(assignment_id) else None
    if assignment is None:
        raise NotFound(ASSIGNMENT_NOT_FOUND)
    role = await get_role(session, assignment.role_id)
    _check_manageable(actor, role, "revoke")
    if assignment.is_active:
        assignment.is_active = False
        assignment.revocation_source = REVOKED_BY_UI
        await session.flush()


async def list_admins(session: AsyncSession, limit: int, offset: int) -> list[AdminWithRolesResponse]:
    """Users holding at least one effective role, by user id; their role names highest level
    first. Two queries: the page of users, then their roles."""
    effective = (
        select(col(UserRole.user_id))
        .join(AdminRole, col(AdminRole.id) == col(UserRole.role_id))
        .where(effective_assignment(utcnow()))
    )
    users = list(
        (
            await session.exec(
                select(User)
                .where(col(User.id).in_(effective))
                .order_by(col(User.id))
                .offset(offset)
                .limit(limit)
            )
        ).all()
    )
    if not users:
        return []
    ids = [user.id for user in users]
    names: dict[int, list[str]] = {}
    query = (
        select(col(UserRole.user_id), col(AdminRole.name))
        .join(AdminRole, col(AdminRole.id) == col(UserRole.role_id))
        .where(col(UserRole.user_id).in_(ids), effective_assignment(utcnow()))
        .order_by(col(AdminRole.level).desc(), col(AdminRole.id))
    )
    for user_id, name in (await session.exec(query)).all():
        names.setdefault(user_id, []).append(name)
    return [
        from_attributes(AdminWithRolesResponse, user, user_id=user.id, role_names=names.get(user.id or 0, []))
        for user in users
    ]


# --- policies ----------------------------------------------------------------------------------


def _check_policy_target(actor: Actor, role: AdminRole | None) -> None:
    """A policy binds the role it names, or everyone: the caller must be above that role, and
    a superadmin for a policy on everyone."""
    if role is None:
        if not actor.is_superadmin:
            raise Forbidden("Only superadmins can manage policies that apply to every role")
    elif role.level >= actor.level:
        raise Forbidden("Cannot manage policies of a role at or above your own level")


async def _policy_role(session: AsyncSession, role_id: int | None) -> AdminRole | None:
    return None if role_id is None else await get_role(session, role_id, REFERENCED_ROLE_NOT_FOUND)


async def policy_responses(session: AsyncSession, policies: Sequence[AccessPolicy]) -> list[PolicyResponse]:
    role_ids = {policy.role_id for policy in policies if policy.role_id is not None}
    names: dict[int, str] = {}
    if role_ids:
        query = select(col(AdminRole.id), col(AdminRole.name)).where(col(AdminRole.id).in_(role_ids))
        names = {int(role_id or 0): name for role_id, name in (await session.exec(query)).all()}
    return [
        from_attributes(
            PolicyResponse,
            policy,
            role_name=names.get(policy.role_id) if policy.role_id is not None else None,
            conditions=policy.conditions or {},
            actions=policy.actions or [],
        )
        for policy in policies
    ]


async def policy_response(session: AsyncSession, policy: AccessPolicy) -> PolicyResponse:
    (answer,) = await policy_responses(session, [policy])
    return answer


async def list_policies(
    session: AsyncSession, role_id: int | None, include_inactive: bool
) -> list[AccessPolicy]:
    """Highest priority first, then oldest first."""
    query = select(AccessPolicy).order_by(col(AccessPolicy.priority).desc(), col(AccessPolicy.id))
    if role_id is not None:
        if not fits_int32(role_id):
            return []
        query = query.where(col(AccessPolicy.role_id) == role_id)
    if not include_inactive:
        query = query.where(col(AccessPolicy.is_active).is_(True))
    return list((await session.exec(query)).all())


async def create_policy(session: AsyncSession, actor: Actor, data: PolicyCreateRequest) -> AccessPolicy:
    role = await _policy_role(session, data.role_id)
    _check_policy_target(actor, role)
    now = utcnow()
    policy = AccessPolicy(
        **data.model_dump(), is_active=True, created_by=actor.user_id, created_at=now, updated_at=now
    )
    session.add(policy)
    await session.flush()
    return policy


async def get_policy(session: AsyncSession, policy_id: int) -> AccessPolicy:
    policy = await session.get(AccessPolicy, policy_id) if fits_int32(policy_id) else None
    if policy is None:
        raise NotFound(POLICY_NOT_FOUND)
    return policy


NOT_NULL_POLICY_FIELDS = ("name", "priority", "effect", "conditions", "resource", "actions", "is_active")


async def update_policy(
    session: AsyncSession, actor: Actor, policy_id: int, changes: dict[str, Any]
) -> AccessPolicy:
    """Change the fields sent (a null ``role_id`` makes the policy apply to every role; other
    nulls are ignored, except ``description``, which they clear)."""
    policy = await get_policy(session, policy_id)
    changes = {k: v for k, v in changes.items() if v is not None or k not in NOT_NULL_POLICY_FIELDS}
    _check_policy_target(actor, await _policy_role(session, policy.role_id))
    if "role_id" in changes and changes["role_id"] != policy.role_id:
        _check_policy_target(actor, await _policy_role(session, changes["role_id"]))
    for name, value in changes.items():
        setattr(policy, name, value)
    policy.updated_at = utcnow()
    await session.flush()
    return policy


async def delete_policy(session: AsyncSession, actor: Actor, policy_id: int) -> None:
    policy = await get_policy(session, policy_id)
    _check_policy_target(actor, await _policy_role(session, policy.role_id))
    await session.delete(policy)
    await session.flush()

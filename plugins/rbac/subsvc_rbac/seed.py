"""Start-up work: the five system roles, and the Superadmin assignments of the administrators
named in the settings.

System roles are found by ``is_system`` and level; a missing one is created, and permissions
added to a preset are merged into the stored role (never removed). Users matching
``ADMIN_IDS`` / ``ADMIN_EMAILS`` get the Superadmin role; active Superadmin assignments of
users no longer named are deactivated with ``revocation_source = 'env'``. A user created later
(first login) gets it through the ``user.created`` event.
"""

from __future__ import annotations

import logging

from sqlalchemy import ColumnElement, func, or_
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.auth.admins import normalise_email
from subsvc.db import Database, utcnow
from subsvc.events import Event
from subsvc.services import services
from subsvc.settings import Settings
from subsvc_rbac import auditing
from subsvc_rbac.gate import rbac_of
from subsvc_rbac.models import REVOKED_BY_SETTINGS, SUPERADMIN_LEVEL, AdminRole, UserRole
from subsvc_rbac.registry import SYSTEM_ROLES, unique

log = logging.getLogger("subsvc.rbac")
ATTEMPTS = 3
ADVISORY_LOCK = 0x5B_AC_00_01  # serialises concurrent start-ups on PostgreSQL
# e-mail verification sources that make an ADMIN_EMAILS address an administrator (not VK/Yandex)
TRUSTED_EMAIL_SOURCES = (None, "cabinet", "oauth_google", "oauth_discord", "admin_override")


async def ensure_system_roles(session: AsyncSession) -> dict[int, AdminRole]:
    """Create the missing system roles and merge new preset permissions; by level."""
    stored = {
        role.level: role
        for role in (await session.exec(select(AdminRole).where(col(AdminRole.is_system)))).all()
    }
    taken = set((await session.exec(select(AdminRole.name))).all())
    for preset in SYSTEM_ROLES:
        role = stored.get(preset.level)
        if role is None:
            name = preset.name if preset.name not in taken else f"{preset.name} (system)"
            now = utcnow()
            role = AdminRole(
                name=name,
                description=preset.description,
                level=preset.level,
                permissions=list(preset.permissions),
                color=preset.color,
                icon=preset.icon,
                is_system=True,
                is_active=True,
                created_at=now,
                updated_at=now,
            )
            session.add(role)
            stored[preset.level] = role
        else:
            merged = unique([*role.permissions, *preset.permissions])
            if merged != role.permissions:
                role.permissions = merged
                role.updated_at = utcnow()
    await session.flush()
    return stored


def is_settings_admin(settings: Settings, user: User) -> bool:
    """The strict check: a messenger id in ``ADMIN_IDS``, or a verified e-mail in
    ``ADMIN_EMAILS`` whose verification source is trusted."""
    if user.messenger_id is not None and user.messenger_id in settings.ADMIN_IDS:
        return True
    if (
        not user.email
        or not user.email_verified
        or user.email_verification_source not in TRUSTED_EMAIL_SOURCES
    ):
        return False
    return normalise_email(user.email) in {normalise_email(e) for e in settings.ADMIN_EMAILS}


async def settings_admins(session: AsyncSession, settings: Settings) -> list[User]:
    conditions: list[ColumnElement[bool]] = []
    if settings.ADMIN_IDS:
        conditions.append(col(User.messenger_id).in_(settings.ADMIN_IDS))
    if settings.ADMIN_EMAILS:
        emails = sorted({normalise_email(e) for e in settings.ADMIN_EMAILS})
        conditions.append(col(User.email_verified).is_(True) & func.lower(col(User.email)).in_(emails))
    if not conditions:
        return []
    users = (await session.exec(select(User).where(or_(*conditions)))).all()
    return [user for user in users if is_settings_admin(settings, user)]


async def grant_superadmin(
    session: AsyncSession, superadmin: AdminRole, user_id: int, current: UserRole | None
) -> bool:
    """Give ``user_id`` the Superadmin role unless it holds it or the UI revoked it; True when
    something changed."""
    if current is None:
        session.add(
            UserRole(user_id=user_id, role_id=superadmin.id or 0, assigned_at=utcnow(), is_active=True)
        )
        return True
    if not current.is_active and current.revocation_source == REVOKED_BY_SETTINGS:
        current.is_active = True
        current.revocation_source = None
        current.assigned_at = utcnow()
        current.expires_at = None
        return True
    return False


def _audit_row(user_id: int, action: str, superadmin: AdminRole) -> auditing.Row:
    return auditing.row(
        user_id=user_id,
        action=action,
        status="success",
        resource_type="roles",
        resource_id=str(superadmin.id),
        details={"source": "settings"},
    )


async def sync_superadmins(
    session: AsyncSession, settings: Settings, superadmin: AdminRole
) -> list[auditing.Row]:
    """Superadmin assignments follow the settings; the audit rows of what changed."""
    admins = {user.id: user for user in await settings_admins(session, settings) if user.id is not None}
    rows = {
        ur.user_id: ur
        for ur in (await session.exec(select(UserRole).where(col(UserRole.role_id) == superadmin.id))).all()
    }
    audit: list[auditing.Row] = []
    for user_id in admins:
        if await grant_superadmin(session, superadmin, user_id, rows.get(user_id)):
            audit.append(_audit_row(user_id, "rbac.superadmin.grant_from_settings", superadmin))
    for user_id, assignment in rows.items():
        if assignment.is_active and user_id not in admins:
            assignment.is_active = False
            assignment.revocation_source = REVOKED_BY_SETTINGS
            audit.append(_audit_row(user_id, "rbac.superadmin.revoke_from_settings", superadmin))
    await session.flush()
    return audit


async def seed(db: Database, settings: Settings) -> list[auditing.Row]:
    """System roles and Superadmin assignments, in one transaction (retried when a concurrent
    start-up inserted the same rows first)."""
    for attempt in range(ATTEMPTS):
        try:
            async with db.session() as session:
                if db.dialect == "postgresql":
                    await session.exec(select(func.pg_advisory_xact_lock(ADVISORY_LOCK)))
                roles = await ensure_system_roles(session)
                audit = await sync_superadmins(session, settings, roles[SUPERADMIN_LEVEL])
                await session.commit()
                return audit
        except IntegrityError:
            if attempt == ATTEMPTS - 1:
                raise
    return []


async def on_user_created(app: Starlette, event: Event) -> None:
    """An administrator from the settings logging in for the first time gets the Superadmin role."""
    settings: Settings = services(app).settings
    messenger_id = event.payload.get("messenger_id")
    if messenger_id is None or messenger_id not in settings.ADMIN_IDS:
        return
    user_id = int(event.payload["user_id"])
    db: Database = services(app).db
    async with db.session() as session:
        superadmin = (
            await session.exec(
                select(AdminRole).where(col(AdminRole.is_system), col(AdminRole.level) == SUPERADMIN_LEVEL)
            )
        ).first()
        user = await session.get(User, user_id)
        if superadmin is None or user is None:
            return
        current = (
            await session.exec(
                select(UserRole).where(
                    col(UserRole.user_id) == user_id, col(UserRole.role_id) == superadmin.id
                )
            )
        ).first()
        if not await grant_superadmin(session, superadmin, user_id, current):
            return
        rbac = rbac_of(app)
        rbac.grants.invalidate_on_commit(session)
        try:
            await session.commit()
        except IntegrityError:  # the start-up sync of another instance was first
            return
    rbac.audit.add(_audit_row(user_id, "rbac.superadmin.auto_grant_on_login", superadmin))

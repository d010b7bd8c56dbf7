"""Start-up: system roles merged, Superadmin following the settings, first-login grant, grants hook."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlmodel import col, select
from starlette.applications import Starlette
from subsvc_rbac.models import AdminRole, AuditLogEntry, UserRole

from subsvc.app import create_app
from subsvc.auth.permissions import user_grants
from subsvc.settings import Settings
from subsvc.testing import ADMIN_MESSENGER_ID

RBAC = "/cabinet/admin/rbac"
PLUGINS = ["subsvc_promo_groups.plugin", "subsvc_users.plugin", "subsvc_rbac.plugin"]


async def _restart(settings: Settings, **changes) -> None:
    """Start (and stop) another app on the same database with changed settings."""
    other = create_app(settings.model_copy(update=changes), plugins=PLUGINS)
    async with other.router.lifespan_context(other):
        pass


async def _superadmin_rows(db) -> list[UserRole]:
    async with db.session() as session:
        role = (await session.exec(select(AdminRole).where(col(AdminRole.level) == 999))).one()
        return list((await session.exec(select(UserRole).where(col(UserRole.role_id) == role.id))).all())


async def test_system_roles_are_merged_never_trimmed(app: Starlette, db, subsvc_settings):
    async with db.session() as session:
        support = (await session.exec(select(AdminRole).where(col(AdminRole.level) == 20))).one()
        support.permissions = ["users:read", "stats:read"]  # one preset permission lost, one extra
        support.name = "Helpdesk"
        await session.commit()
    await _restart(subsvc_settings)
    async with db.session() as session:
        roles = list((await session.exec(select(AdminRole).where(col(AdminRole.is_system)))).all())
    assert len(roles) == 5
    support = next(role for role in roles if role.level == 20)
    assert support.name == "Helpdesk"  # found by level, not by name
    assert support.permissions == ["users:read", "stats:read", "tickets:read", "tickets:reply"]


async def test_settings_admins_get_superadmin_and_lose_it_when_removed(app, db, make_user, subsvc_settings):
    admin_user = await make_user(messenger_id=ADMIN_MESSENGER_ID)
    mail_admin = await make_user(
        email="boss@example.com", email_verified=True, email_verification_source="cabinet"
    )
    await make_user(email="vk@example.com", email_verified=True, email_verification_source="oauth_vk")
    await make_user(email="late@example.com", email_verified=False)
    emails = ["Boss@Example.com ", "vk@example.com", "late@example.com"]
    settings = subsvc_settings.model_copy(update={"ADMIN_EMAILS": emails})
    await _restart(settings)
    rows = await _superadmin_rows(db)
    assert {(row.user_id, row.is_active) for row in rows} == {(admin_user.id, True), (mail_admin.id, True)}

    await _restart(settings, ADMIN_IDS=[], ADMIN_EMAILS=["boss@example.com"])
    rows = {row.user_id: row for row in await _superadmin_rows(db)}
    assert (rows[admin_user.id].is_active, rows[admin_user.id].revocation_source) == (False, "env")
    assert rows[mail_admin.id].is_active

    await _restart(settings)  # named again: the assignment comes back
    rows = {row.user_id: row for row in await _superadmin_rows(db)}
    assert (rows[admin_user.id].is_active, rows[admin_user.id].revocation_source) == (True, None)


async def test_superadmin_holders_are_listed_as_role_holders(app, admin, make_user, subsvc_settings):
    user = await make_user(messenger_id=ADMIN_MESSENGER_ID, first_name="Root")
    await _restart(subsvc_settings)
    listed = (await admin.get(f"{RBAC}/users")).json()
    assert [(item["user_id"], item["role_names"]) for item in listed] == [(user.id, ["Superadmin"])]
    superadmin = next(r for r in (await admin.get(f"{RBAC}/roles")).json() if r["name"] == "Superadmin")
    (assignment,) = (await admin.get(f"{RBAC}/roles/{superadmin['id']}/users")).json()
    revoke = await admin.delete(f"{RBAC}/assignments/{assignment['id']}")
    assert (revoke.status_code, revoke.json()) == (
        403,
        {"detail": "The Superadmin role is granted only through ADMIN_IDS / ADMIN_EMAILS"},
    )


async def test_first_login_of_a_settings_admin_grants_superadmin(app, db, make_user, rows):
    user = await make_user(messenger_id=ADMIN_MESSENGER_ID)  # as a login plugin creates it

    async def granted() -> list[UserRole]:
        return [row for row in await _superadmin_rows(db) if row.user_id == user.id and row.is_active]

    for _ in range(200):
        if await granted():
            break
        await asyncio.sleep(0.02)
    assert await granted()
    await app.state.rbac.audit.flush()
    (row,) = await rows(AuditLogEntry, action="rbac.superadmin.auto_grant_on_login")
    assert row.user_id == user.id


async def test_user_grants_hook(app, db, admin, make_user):
    roles = []
    for name, level, permissions in (("A", 40, ["users:read"]), ("B", 20, ["users:*", "roles:read"])):
        body = {"name": name, "level": level, "permissions": permissions}
        roles.append((await admin.post(f"{RBAC}/roles", json=body)).json())
    expired = (
        await admin.post(f"{RBAC}/roles", json={"name": "C", "level": 90, "permissions": ["*:*"]})
    ).json()
    user = await make_user()
    for role in roles:
        await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"]})
    soon = (datetime.now(UTC) + timedelta(milliseconds=300)).isoformat()
    await admin.post(
        f"{RBAC}/assignments", json={"user_id": user.id, "role_id": expired["id"], "expires_at": soon}
    )
    await asyncio.sleep(0.4)
    async with db.session() as session:
        grants = await user_grants(app, session, user.id)
        nobody = await user_grants(app, session, 424242)
    assert grants.roles == ("A", "B")
    assert grants.permissions == ("users:read", "users:*", "roles:read")
    assert grants.level == 40
    assert (nobody.roles, nobody.permissions, nobody.level) == ((), (), 0)

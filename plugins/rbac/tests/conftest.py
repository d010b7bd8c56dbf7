"""Run rbac with the plugins it needs; users, role holders' tokens and the audit rows for tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
from sqlalchemy import delete
from starlette.applications import Starlette
from subsvc_rbac.models import AuditLogEntry
from subsvc_users.models import User
from subsvc_users.schemas import UserCreateRequest
from subsvc_users.service import create_user

from subsvc.db import Database
from subsvc.testing import Rows

RBAC = "/cabinet/admin/rbac"
IDENTITY_FIELDS = ("email", "email_verified", "email_verification_source")
MakeUser = Callable[..., Awaitable[User]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_promo_groups.plugin", "subsvc_users.plugin", "subsvc_rbac.plugin"]


@pytest.fixture(autouse=True)
async def fresh_audit_log(app: Starlette, db: Database) -> AsyncIterator[None]:
    """Start without audit rows: an earlier app's shutdown may write its last rows after the
    tables were emptied. Write this test's rows before the app's tables are emptied."""
    async with db.session() as session:
        await session.exec(delete(AuditLogEntry))  # type: ignore[call-overload]
        await session.commit()
    yield
    await app.state.rbac.audit.flush()


@pytest.fixture
def make_user(app: Starlette, db: Database) -> MakeUser:
    """``await make_user(first_name="Ann", email=..., email_verified=True)``: a committed user
    made by the users plugin's ``create_user`` (extra identity fields set afterwards)."""
    counter = iter(range(1, 1_000_000))

    async def make(**fields: Any) -> User:
        identity = {
            k: fields.pop(k) for k in ("email", "email_verified", "email_verification_source") if k in fields
        }
        fields.setdefault("messenger_id", 700_000_000 + next(counter))
        async with db.session() as session:
            user = await create_user(app, session, UserCreateRequest(**fields))
            for name, value in identity.items():
                setattr(user, name, value)
            await session.commit()
        return user

    return make


@pytest.fixture
def token_for(app: Starlette) -> Callable[[User], str]:
    """A cabinet access JWT of a user (not an administrator unless the settings name them)."""

    def issue(user: User) -> str:
        token: str = app.state.jwt.access_token(user.id, messenger_id=user.messenger_id)
        return token

    return issue


@pytest.fixture
def as_user(app: Starlette) -> Callable[[str], httpx2.AsyncClient]:
    """``async with as_user(token) as http``: a client sending that bearer token."""

    def build(token: str, client_ip: str = "127.0.0.1") -> httpx2.AsyncClient:
        transport = httpx2.ASGITransport(app=app, client=(client_ip, 50000))
        return httpx2.AsyncClient(
            transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {token}"}
        )

    return build


@pytest.fixture
async def admin(app: Starlette, admin_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client of the settings administrator (``ADMIN_IDS``)."""
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {admin_token}"}
    ) as http:
        yield http


Holder = Callable[..., Awaitable[tuple[User, httpx2.AsyncClient]]]


@pytest.fixture
async def holder(
    admin: httpx2.AsyncClient,
    make_user: MakeUser,
    token_for: Callable[[User], str],
    as_user: Callable[..., httpx2.AsyncClient],
) -> AsyncIterator[Holder]:
    """``user, http = await holder(level=50, permissions=[...])``: a user holding a new role
    (made and assigned by the administrator through the API) and a client of theirs."""
    clients: list[httpx2.AsyncClient] = []
    counter = iter(range(1, 1000))

    async def make(level: int, permissions: list[str], client_ip: str = "127.0.0.1", **role: Any) -> Any:
        number = next(counter)
        body = {"name": f"role-{number}", "level": level, "permissions": permissions, **role}
        created = await admin.post(f"{RBAC}/roles", json=body)
        assert created.status_code == 201, created.text
        user = await make_user(first_name=f"Holder {number}")
        assigned = await admin.post(
            f"{RBAC}/assignments", json={"user_id": user.id, "role_id": created.json()["id"]}
        )
        assert assigned.status_code == 201, assigned.text
        http = as_user(token_for(user), client_ip)
        clients.append(http)
        return user, http

    yield make
    for http in clients:
        if not http.is_closed:
            await http.aclose()


@pytest.fixture
def audit_rows(app: Starlette, rows: Rows) -> Callable[..., Awaitable[list[AuditLogEntry]]]:
    """The audit rows matching the filters, after the queue is written."""

    async def read(**filters: Any) -> list[AuditLogEntry]:
        await app.state.rbac.audit.flush()
        return list(await rows(AuditLogEntry, **filters))

    return read

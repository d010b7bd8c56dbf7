"""Test helpers for tests that run with the rbac plugin deciding: a holder of a new role (and
the ``permission_holder`` fixture making them), and an audit log that starts empty.

In a test module (or a conftest) of an app that includes ``subsvc_rbac.plugin``::

    from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture

    async def test_a_reader_reads(app, admin, member_user):
        async with await role_holder(app, admin, member_user.id, ["tariffs:read"]) as reader:
            assert (await reader.get("/cabinet/admin/tariffs")).status_code == 200

Importing ``fresh_audit_log`` is enough: it is an autouse fixture, so it runs for every test
of that module (or of the conftest's folder).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
from sqlalchemy import delete
from starlette.applications import Starlette

from subsvc.db import Database
from subsvc.services import services
from subsvc.testing import bearer_client
from subsvc_rbac.models import AuditLogEntry

RBAC = "/cabinet/admin/rbac"


async def grant_role(
    admin: httpx2.AsyncClient,
    user_id: int,
    permissions: list[str],
    *,
    name: str = "Holder",
    level: int = 10,
    **role: Any,
) -> dict[str, Any]:
    """Create a role holding ``permissions`` and assign it to ``user_id``, both through the API
    as ``admin`` (asserting 201 each time); return the created role."""
    body = {"name": name, "level": level, "permissions": permissions, **role}
    created = await admin.post(f"{RBAC}/roles", json=body)
    assert created.status_code == 201, created.text
    assignment = {"user_id": user_id, "role_id": created.json()["id"]}
    assigned = await admin.post(f"{RBAC}/assignments", json=assignment)
    assert assigned.status_code == 201, assigned.text
    result: dict[str, Any] = created.json()
    return result


async def role_holder(
    app: Starlette,
    admin: httpx2.AsyncClient,
    user_id: int,
    permissions: list[str],
    *,
    messenger_id: int | None = None,
    client_ip: str = "127.0.0.1",
    **role: Any,
) -> httpx2.AsyncClient:
    """:func:`grant_role`, then a client sending ``user_id``'s access JWT (with
    ``messenger_id``) from ``client_ip``; enter it with ``async with``. ``role`` takes the
    role's other fields (``name``, ``level``, ...)."""
    await grant_role(admin, user_id, permissions, **role)
    token: str = services(app).jwt.access_token(user_id, messenger_id=messenger_id)
    return bearer_client(app, token, client_ip)


@pytest.fixture
def permission_holder(
    app: Starlette, admin: httpx2.AsyncClient, make_user: Any
) -> Callable[[list[str]], Awaitable[httpx2.AsyncClient]]:
    """``async with await permission_holder(["panel:read"]) as http``: a client of a new user
    (``make_user``) holding a new role (``role-<n>``) with ``permissions``."""
    counter = iter(range(1, 1000))

    async def make(permissions: list[str]) -> httpx2.AsyncClient:
        number = next(counter)
        user = await make_user(first_name=f"Holder {number}")
        return await role_holder(
            app, admin, user.id, permissions, messenger_id=user.messenger_id, name=f"role-{number}"
        )

    return make


@pytest.fixture(autouse=True)
async def fresh_audit_log(app: Starlette, db: Database) -> AsyncIterator[None]:
    """Start without audit rows (an earlier app's shutdown may write its last rows after the
    tables were emptied), and write this test's rows before the app's tables are emptied."""
    async with db.session() as session:
        await session.exec(delete(AuditLogEntry))
        await session.commit()
    yield
    await app.state.rbac.audit.flush()

"""With the rbac plugin deciding: a role's `promo_offers:*` permissions open exactly their
operations (read, edit, send)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from sqlalchemy import delete
from starlette.applications import Starlette
from subsvc_rbac.models import AuditLogEntry

from subsvc.db import Database

ADMIN = "/cabinet/admin/promo-offers"
RBAC = "/cabinet/admin/rbac"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return [
        "subsvc_promo_groups.plugin",
        "subsvc_users.plugin",
        "subsvc_billing.plugin",
        "subsvc_subscriptions.plugin",
        "subsvc_segments.plugin",
        "subsvc_rbac.plugin",
        "subsvc_promo_offers.plugin",
    ]


@pytest.fixture(autouse=True)
async def fresh_audit_log(app: Starlette, db: Database) -> AsyncIterator[None]:
    """No audit rows of an earlier app; this test's written before the tables are emptied."""
    async with db.session() as session:
        await session.exec(delete(AuditLogEntry))  # type: ignore[call-overload]
        await session.commit()
    yield
    await app.state.rbac.audit.flush()


async def _holder(
    app: Starlette, admin: httpx2.AsyncClient, user_id: int, permissions: list[str]
) -> httpx2.AsyncClient:
    role = await admin.post(f"{RBAC}/roles", json={"name": "Offers", "level": 10, "permissions": permissions})
    assert role.status_code == 201, role.text
    assigned = await admin.post(
        f"{RBAC}/assignments", json={"user_id": user_id, "role_id": role.json()["id"]}
    )
    assert assigned.status_code == 201, assigned.text
    token = app.state.jwt.access_token(user_id, messenger_id=None)
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 50000))
    return httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {token}"}
    )


async def test_a_reader_reads_but_neither_edits_nor_sends(app, admin, member_user):
    async with await _holder(app, admin, member_user.id, ["promo_offers:read"]) as reader:
        assert (await reader.get(ADMIN)).status_code == 200
        templates = (await reader.get(f"{ADMIN}/templates")).json()["items"]
        response = await reader.patch(f"{ADMIN}/templates/{templates[0]['id']}", json={"name": "x"})
        assert response.status_code == 403
        assert response.json()["detail"].startswith("Permission denied")
        body = {"notification_type": "n", "valid_hours": 1, "user_id": member_user.id}
        assert (await reader.post(f"{ADMIN}/broadcast", json=body)).status_code == 403


async def test_every_promo_offers_permission_opens_everything(app, admin, member_user):
    async with await _holder(app, admin, member_user.id, ["promo_offers:*"]) as marketer:
        body = {"notification_type": "n", "valid_hours": 1, "user_id": member_user.id}
        assert (await marketer.post(f"{ADMIN}/broadcast", json=body)).status_code == 201
        templates = (await marketer.get(f"{ADMIN}/templates")).json()["items"]
        assert (
            await marketer.patch(f"{ADMIN}/templates/{templates[0]['id']}", json={"name": "x"})
        ).status_code == 200

"""With the rbac plugin deciding: `broadcasts:read` reads, `broadcasts:create` creates,
`broadcasts:send` stops; every call is in the audit log."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_rbac.models import AuditLogEntry
from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture

ADMIN = "/cabinet/admin/broadcasts"


@pytest.fixture
def subsvc_plugins(subsvc_plugins: list[Any]) -> list[Any]:
    return [*subsvc_plugins, "rbac"]


async def test_a_reader_reads_but_neither_creates_nor_stops_and_it_is_audited(app, admin, users, rows):
    (reader_id,) = await users(1, first_chat=610_000_000)
    async with await role_holder(app, admin, reader_id, ["broadcasts:read"]) as reader:
        assert (await reader.get(ADMIN)).status_code == 200
        refused = await reader.post(ADMIN, json={"target": "all", "message_text": "x"})
        assert refused.status_code == 403 and refused.json()["detail"].startswith("Permission denied")
        assert (await reader.post(f"{ADMIN}/1/stop")).status_code == 403
    await app.state.rbac.audit.flush()
    audit = [row for row in await rows(AuditLogEntry) if row.user_id == reader_id]
    assert {(row.action, row.status) for row in audit} == {
        ("broadcasts:read", "success"),
        ("broadcasts:create", "denied"),
        ("broadcasts:send", "denied"),
    }


async def test_create_and_send_open_with_their_permissions(app, admin, users, finished):
    (sender_id,) = await users(1, first_chat=620_000_000)
    async with await role_holder(app, admin, sender_id, ["broadcasts:*"]) as sender:
        created = await sender.post(ADMIN, json={"target": "all", "message_text": "x"})
        assert created.status_code == 201
        await finished(created.json()["id"])
        assert (await sender.post(f"{ADMIN}/{created.json()['id']}/stop")).status_code == 400

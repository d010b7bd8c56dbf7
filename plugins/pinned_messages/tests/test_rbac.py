"""With the rbac plugin deciding: a role's `pinned_messages:*` permissions open exactly their
operations, and every admin call is audited."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_rbac.models import AuditLogEntry
from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture

ADMIN = "/cabinet/admin/pinned-messages"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["rbac", "pinned_messages"]


async def test_a_reader_reads_but_neither_creates_nor_deletes(app, admin, member_user, db):
    created = (await admin.post(ADMIN, json={"content": "x"})).json()["message"]
    async with await role_holder(app, admin, member_user.id, ["pinned_messages:read"]) as reader:
        assert (await reader.get(ADMIN)).status_code == 200
        assert (await reader.get(f"{ADMIN}/{created['id']}")).status_code == 200
        refused = await reader.post(ADMIN, json={"content": "y"})
        assert refused.status_code == 403 and refused.json()["detail"].startswith("Permission denied")
        assert (await reader.delete(f"{ADMIN}/{created['id']}")).status_code == 403
    await app.state.rbac.audit.flush()
    async with db.session() as session:
        entries = (await session.exec(AuditLogEntry.__table__.select())).all()  # type: ignore[call-overload]
    assert {(e.user_id, e.status) for e in entries if e.user_id == member_user.id} >= {
        (member_user.id, "success"),
        (member_user.id, "denied"),
    }


async def test_every_pinned_messages_permission_opens_everything(app, admin, member_user):
    async with await role_holder(app, admin, member_user.id, ["pinned_messages:*"]) as editor:
        created = await editor.post(ADMIN, json={"content": "x"})
        assert created.status_code == 201
        assert created.json()["message"]["created_by"] == member_user.id
        message_id = created.json()["message"]["id"]
        assert (await editor.patch(f"{ADMIN}/{message_id}", json={"content": "y"})).status_code == 200
        assert (await editor.delete(f"{ADMIN}/{message_id}")).status_code == 204

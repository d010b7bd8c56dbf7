"""With the rbac plugin deciding: `tickets:settings` reads and changes the settings, another
permission does not; every call is in the audit log (with the body of a change)."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_rbac.models import AuditLogEntry
from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture

SETTINGS = "/cabinet/admin/tickets/settings"


@pytest.fixture
def subsvc_plugins(subsvc_plugins: list[Any]) -> list[Any]:
    return [*subsvc_plugins, "rbac"]


async def test_the_settings_permission_reads_and_changes_and_is_audited(app, admin, make_user, rows):
    holder, other = await make_user(), await make_user()
    async with await role_holder(app, admin, holder.id, ["tickets:settings"], name="Support lead") as lead:
        assert (await lead.get(SETTINGS)).status_code == 200
        assert (await lead.patch(SETTINGS, json={"sla_minutes": 12})).json()["sla_minutes"] == 12
    async with await role_holder(app, admin, other.id, ["users:read"], name="Auditor") as auditor:
        assert (await auditor.get(SETTINGS)).status_code == 403
        assert (await auditor.patch(SETTINGS, json={"sla_minutes": 13})).status_code == 403
    assert (await admin.get(SETTINGS)).json()["sla_minutes"] == 12
    await app.state.rbac.audit.flush()
    audit = [
        (r.user_id, r.request_method, r.status)
        for r in await rows(AuditLogEntry)
        if r.action == "tickets:settings"
    ]
    assert sorted(audit) == sorted(
        [
            (holder.id, "GET", "success"),
            (holder.id, "PATCH", "success"),
            (other.id, "GET", "denied"),
            (other.id, "PATCH", "denied"),
            (1, "GET", "success"),
        ]
    )

"""With the rbac plugin deciding: `tickets:read` reads, `tickets:reply` answers (recorded as
that agent), `tickets:close` changes status and priority; nothing more."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture

from .conftest import detail, open_ticket

ADMIN = "/cabinet/admin/tickets"


@pytest.fixture
def subsvc_plugins(subsvc_plugins: list[Any]) -> list[Any]:
    return [*subsvc_plugins, "rbac"]


async def test_each_permission_allows_its_operations(
    app: Any,
    admin: httpx2.AsyncClient,
    member: httpx2.AsyncClient,
    client: httpx2.AsyncClient,
    make_user: Any,
):
    tid = (await open_ticket(member))["id"]
    reader, agent = await make_user(username="reader"), await make_user(username="agent")
    async with await role_holder(app, admin, reader.id, ["tickets:read"], name="Reader") as http:
        assert detail(await http.get(ADMIN))["total"] == 1
        assert detail(await http.get(f"{ADMIN}/{tid}"))["id"] == tid
        assert detail(await http.get(f"{ADMIN}/stats"))["open"] == 1
        assert (await http.post(f"{ADMIN}/{tid}/reply", json={"message": "Hi"})).status_code == 403
        assert (await http.post(f"{ADMIN}/{tid}/status", json={"status": "closed"})).status_code == 403
    async with await role_holder(app, admin, agent.id, ["tickets:reply"], name="Agent") as http:
        assert (await http.get(ADMIN)).status_code == 403
        assert detail(await http.post(f"{ADMIN}/{tid}/reply", json={"message": "Hello from the agent"}))
        assert (await http.post(f"{ADMIN}/{tid}/priority", json={"priority": "high"})).status_code == 403
    messages = detail(await client.get(f"/tickets/{tid}"))["messages"]
    assert (messages[-1]["author_user_id"], messages[-1]["user_id"]) == (agent.id, agent.id)
    async with await role_holder(app, admin, reader.id, ["tickets:close"], name="Closer") as http:
        assert (
            detail(await http.post(f"{ADMIN}/{tid}/priority", json={"priority": "high"}))["priority"]
            == "high"
        )
        assert (
            detail(await http.post(f"{ADMIN}/{tid}/status", json={"status": "closed"}))["status"] == "closed"
        )

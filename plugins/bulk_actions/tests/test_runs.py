"""The run around the actions: the SSE stream, a retry with the same Idempotency-Key, the
permissions (``bulk_actions:execute`` and the action's own) and their audit."""

from __future__ import annotations

import pytest
from subsvc_billing.api import Transaction
from subsvc_bulk_actions.models import BulkRun, BulkRunItem
from subsvc_users.api import User

from .conftest import execute, sse_events


async def test_the_stream_sends_progress_per_target_then_the_summary(admin, users):
    ids = await users(5)
    response = await execute(
        admin, "add_balance", stream=True, user_ids=[*ids, 999_999], params={"amount_kopeks": 100}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    progress, last = events[:-1], events[-1]
    assert [e["type"] for e in progress] == ["progress"] * 6
    assert [e["current"] for e in progress] == [1, 2, 3, 4, 5, 6]
    assert {e["total"] for e in progress} == {6}
    assert [e["user_id"] for e in progress] == [*ids, 999_999]
    assert progress[0]["success"] is True and progress[0]["message"].startswith("Added 1.00₽")
    assert progress[5]["success"] is False and progress[5]["message"] == "User not found"
    assert last == {
        "type": "complete",
        "run_id": int(response.headers["x-bulk-run-id"]),
        "action": "add_balance",
        "total": 6,
        "success_count": 5,
        "error_count": 0,
        "skipped_count": 1,
        "dry_run": False,
    }


async def test_a_retry_with_the_same_key_answers_the_same_run(admin, users, rows, reload):
    ids = await users(3)
    body = {"user_ids": ids, "params": {"amount_kopeks": 250}}
    first = await execute(admin, "add_balance", key="k-1", **body)
    again = await execute(admin, "add_balance", key="k-1", **body)
    streamed = await execute(admin, "add_balance", key="k-1", stream=True, **body)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert [e["user_id"] for e in sse_events(streamed.text)[:-1]] == ids
    assert len(await rows(BulkRun)) == 1 and len(await rows(Transaction)) == 3
    assert (await reload(User, ids[0])).balance_kopeks == 250
    other = await execute(admin, "add_balance", key="k-1", user_ids=ids, params={"amount_kopeks": 1})
    assert (other.status_code, other.json()) == (
        409,
        {"detail": "Idempotency-Key was already used for another bulk action"},
    )
    without = await execute(admin, "add_balance", **body)
    assert without.json()["run_id"] != first.json()["run_id"]
    assert (await reload(User, ids[0])).balance_kopeks == 500


async def test_each_action_needs_its_own_permission(permission_holder, admin, users, rows, reload):
    ids = await users(1)
    async with await permission_holder(["bulk_actions:execute", "users:promo_group"]) as http:
        refused = await execute(http, "add_balance", user_ids=ids, params={"amount_kopeks": 5})
        assert refused.status_code == 403
        allowed = await execute(http, "assign_promo_group", user_ids=ids)
        assert allowed.status_code == 200 and allowed.json()["success_count"] == 1
    async with await permission_holder(["users:*"]) as http:
        assert (
            await execute(http, "add_balance", user_ids=ids, params={"amount_kopeks": 5})
        ).status_code == 403
    assert (await reload(User, ids[0])).balance_kopeks == 0
    assert len(await rows(BulkRun)) == 1
    log = await admin.get("/cabinet/admin/rbac/audit-log", params={"limit": 500})
    audited = [(row["action"], row["status"]) for row in log.json()["items"]]
    assert ("users:balance", "denied") in audited
    assert ("users:promo_group", "success") in audited
    assert ("bulk_actions:execute", "denied") in audited
    assert audited.count(("bulk_actions:execute", "success")) == 2


async def test_a_member_without_a_role_is_refused(member, users, rows):
    ids = await users(1)
    response = await execute(member, "add_balance", user_ids=ids, params={"amount_kopeks": 5})
    assert response.status_code == 403
    assert await rows(BulkRunItem) == []


@pytest.mark.parametrize("subsvc_settings_overrides", [{"IS_DOCS_ENABLED": True}])
async def test_the_document_says_the_answer_is_json_or_a_stream(anon_client):
    document = (await anon_client.get("/openapi.json")).json()
    operation = document["paths"]["/cabinet/admin/bulk/execute"]["post"]
    assert set(operation["responses"]["200"]["content"]) == {"application/json", "text/event-stream"}
    assert [p["name"] for p in operation["parameters"]] == ["stream", "idempotency-key"]

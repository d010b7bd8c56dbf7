"""The audit writer never drops good rows with a bad one (issue 16): values a database is known
to refuse are made storable first (a NUL character in a text or in the details, NaN in the
details, texts longer than their columns), and a batch the database still refuses is written
row by row, so only the row at fault is lost, counted and logged with the reason."""

from __future__ import annotations

import logging
import math

from subsvc_rbac import auditing

RBAC = "/cabinet/admin/rbac"


def _good(number: int) -> dict:
    return auditing.row(
        user_id=1,
        action=f"roles:read:{number}",
        status="success",
        details={"number": number},
        request_method="GET",
        request_path=f"{RBAC}/roles",
    )


async def test_a_batch_with_a_row_the_database_refuses_keeps_the_others(app, audit_rows, caplog):
    writer = app.state.rbac.audit
    dropped = writer.dropped
    refused = _good(99)
    refused["status"] = None  # NOT NULL: refused by every database, whatever is cleaned
    for number in range(4):
        writer.add(_good(number))
    writer.add(refused)
    for number in range(4, 8):
        writer.add(_good(number))
    with caplog.at_level(logging.ERROR, logger="subsvc.rbac.audit"):
        rows = await audit_rows()
    assert sorted(row.details["number"] for row in rows) == list(range(8))  # a lost good row fails
    assert writer.dropped == dropped + 1
    assert writer.pending == []
    (message,) = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert "roles:read:99" in message and "status" in message.lower()


async def test_values_postgresql_refuses_are_made_storable(app, audit_rows):
    writer = app.state.rbac.audit
    dropped = writer.dropped
    bad = auditing.row(
        user_id=1,
        action="roles:delete\x00",
        status="success",
        resource_id="7\x00",
        details={"query_params": {"q\x00": "a\x00b"}, "request_body": [math.nan, math.inf, -math.inf, 1.5]},
        user_agent="agent\x00",
        request_method="DELETE",
        request_path=f"{RBAC}/roles/7\x00",
    )
    bad["request_method"] = "X" * 30  # longer than its column (VARCHAR(10))
    writer.add(_good(0))
    writer.add(bad)
    writer.add(_good(1))
    rows = await audit_rows()
    assert writer.dropped == dropped
    assert len(rows) == 3
    (cleaned,) = [row for row in rows if row.action.startswith("roles:delete")]
    assert (cleaned.action, cleaned.resource_id, cleaned.user_agent) == (
        "roles:delete\ufffd",
        "7\ufffd",
        "agent\ufffd",
    )
    assert cleaned.request_path == f"{RBAC}/roles/7\ufffd"
    assert cleaned.request_method == "X" * 10
    assert cleaned.details == {
        "query_params": {"q\ufffd": "a\ufffdb"},
        "request_body": ["NaN", "Infinity", "-Infinity", 1.5],
    }


async def test_calls_with_nul_characters_and_nan_bodies_are_all_recorded(admin, audit_rows):
    responses = [
        await admin.get(f"{RBAC}/roles"),
        await admin.delete(f"{RBAC}/roles/12%00"),
        await admin.get(f"{RBAC}/roles", params={"search": "a\x00b"}),
        await admin.post(
            f"{RBAC}/roles",
            content=b'{"name": "Nan", "level": NaN}',
            headers={"content-type": "application/json"},
        ),
        await admin.get(f"{RBAC}/roles"),
    ]
    assert max(response.status_code for response in responses) < 500
    rows = await audit_rows()
    assert [row.request_method for row in rows] == ["GET", "DELETE", "GET", "POST", "GET"]
    assert all("\x00" not in (row.request_path or "") for row in rows)

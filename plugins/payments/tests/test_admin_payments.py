"""`/cabinet/admin/payments`: every user's payments with their users (pending list, search by
text, status group, method, period and dates; pages by number and by keyset cursor), their
figures, one payment, and the administrators' check (crediting once); the permissions and
the audit rows (with rbac)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy import update
from subsvc_payments.api import Payment, ProviderStatus
from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture

from subsvc.db import Database

ADMIN = "/cabinet/admin/payments"


@pytest.fixture
def subsvc_plugins(provider_plugin: ModuleType) -> list[Any]:
    return ["payments", provider_plugin, "rbac"]


@pytest.fixture
def backdate(db: Database) -> Any:
    """``await backdate(payment, days=3)``: the payment made that long ago."""

    async def move(payment: Payment, **ago: float) -> None:
        moment = datetime.now(UTC) - timedelta(**ago)
        async with db.session() as session:
            await session.exec(update(Payment).where(Payment.id == payment.id).values(created_at=moment))
            await session.commit()

    return move


@pytest.fixture
async def people(make_user: Any) -> dict[str, Any]:
    return {
        "ann": await make_user(username="ann_k", first_name="Ann", email="ann@example.com"),
        "bob": await make_user(username="bobby", first_name="Bob"),
    }


async def found(http: Any, path: str = f"{ADMIN}/search", **params: Any) -> list[int]:
    response = await http.get(path, params=params)
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["items"]]


async def test_the_pending_list_is_every_users_newest_first_with_the_user(
    admin, admin_user, people, new_payment, credit, fake_provider
):
    ann, bob = people["ann"], people["bob"]
    first = await new_payment(ann.id, 15_000, provider_payment_id="fp-a1", provider="fakepay")
    other = await new_payment(bob.id, 20_000, provider_payment_id="x-1", provider="other")
    paid = await new_payment(bob.id, 30_000, provider_payment_id="fp-b1", provider="fakepay")
    await credit("fp-b1", 30_000, provider="fakepay")
    response = await admin.get(ADMIN)
    assert response.status_code == 200
    page = response.json()
    assert [item["id"] for item in page["items"]] == [other.id, first.id]
    assert (page["total"], page["page"], page["per_page"], page["pages"], page["next_cursor"]) == (
        2,
        1,
        20,
        1,
        None,
    )
    item = page["items"][1]
    assert item | {"created_at": None, "expires_at": None} == {
        "id": first.id,
        "method": "fakepay",
        "method_display": "Fake card",
        "identifier": "fp-a1",
        "amount_kopeks": 15_000,
        "amount_rubles": 150.0,
        "status": "pending",
        "status_emoji": "⏳",
        "status_text": "Ожидает оплаты",
        "is_paid": False,
        "is_checkable": True,
        "created_at": None,
        "expires_at": None,
        "payment_url": None,
        "user_id": ann.id,
        "user_messenger_id": ann.messenger_id,
        "user_username": "ann_k",
        "user_email": "ann@example.com",
        "decline_reason": None,
    }
    assert await found(admin, ADMIN, method_filter="other") == [other.id]
    assert paid.id not in await found(admin, ADMIN)
    stats = await admin.get(f"{ADMIN}/stats")
    assert (stats.status_code, stats.json()) == (
        200,
        {"total_pending": 2, "by_method": {"fakepay": 1, "other": 1}},
    )


async def test_the_search_by_text_status_method_and_time(
    admin, admin_user, people, new_payment, credit, fail, backdate
):
    ann, bob = people["ann"], people["bob"]
    pending = await new_payment(ann.id, 10_000, provider_payment_id="fp-1", provider="fakepay")
    paid = await new_payment(bob.id, 20_000, provider_payment_id="fp-2", provider="fakepay")
    failed = await new_payment(bob.id, 30_000, provider_payment_id="fp-3", provider="fakepay")
    week_old = await new_payment(ann.id, 40_000, provider_payment_id="x-4", provider="other")
    await credit("fp-2", 20_000, provider="fakepay")
    await fail("fp-3", "canceled", "user gave up")
    await backdate(week_old, days=6)
    newest_first = [failed.id, paid.id, pending.id]
    assert await found(admin) == newest_first  # the last 24 h, every status
    assert await found(admin, period="7d") == [*newest_first, week_old.id]
    assert await found(admin, period="all", status_filter="paid") == [paid.id]
    assert await found(admin, period="all", status_filter="cancelled") == [failed.id]
    assert await found(admin, period="all", status_filter="pending") == [pending.id, week_old.id]
    assert await found(admin, period="forever", status_filter="anything") == newest_first  # as 24h, all
    assert await found(admin, period="all", method_filter="other") == [week_old.id]
    for text, expected in {
        "@ann_k": [pending.id, week_old.id],
        "bobby": [failed.id, paid.id],
        "ANN@example.com": [pending.id, week_old.id],
        str(bob.messenger_id): [failed.id, paid.id],
        str(ann.id): [p.id for p in (failed, paid, pending, week_old) if ann.id in (p.user_id, p.id)],
        "fp-3": [failed.id],
        "x-4": [week_old.id],
        str(week_old.id): [week_old.id],
        "nobody": [],
    }.items():
        assert await found(admin, period="all", search=text) == expected, text
    since = (datetime.now(UTC) - timedelta(days=7)).isoformat()
    until = (datetime.now(UTC) - timedelta(days=5)).replace(tzinfo=None).isoformat()  # naive: UTC
    assert await found(admin, date_from=since, date_to=until) == [week_old.id]
    refused = await admin.get(f"{ADMIN}/search", params={"date_from": until, "date_to": since})
    assert (refused.status_code, refused.json()) == (400, {"detail": "date_from must be before date_to"})
    refused = await admin.get(f"{ADMIN}/search/stats", params={"date_from": until, "date_to": since})
    assert refused.status_code == 400
    (shown,) = (await admin.get(f"{ADMIN}/search", params={"search": "fp-3"})).json()["items"]
    assert (shown["status"], shown["decline_reason"], shown["user_username"]) == (
        "canceled",
        "user gave up",
        "bobby",
    )


async def test_the_search_figures_in_one_answer(
    admin, admin_user, people, new_payment, credit, fail, backdate
):
    ann, bob = people["ann"], people["bob"]
    await new_payment(ann.id, 10_000, provider_payment_id="fp-1", provider="fakepay")
    await new_payment(bob.id, 20_000, provider_payment_id="fp-2", provider="fakepay")
    await new_payment(bob.id, 30_000, provider_payment_id="fp-3", provider="fakepay")
    old = await new_payment(ann.id, 40_000, provider_payment_id="x-4", provider="other")
    await credit("fp-2", 20_000, provider="fakepay")
    await credit("x-4", 40_000, provider="other")
    await fail("fp-3", "failed")
    await backdate(old, days=2)
    response = await admin.get(f"{ADMIN}/search/stats", params={"period": "7d"})
    assert response.status_code == 200
    stats = response.json()
    today, two_days_ago = datetime.now(UTC).date(), (datetime.now(UTC) - timedelta(days=2)).date()
    fakepay = {"total": 3, "pending": 1, "paid": 1, "cancelled": 1, "amount_kopeks": 60_000}
    other = {"total": 1, "pending": 0, "paid": 1, "cancelled": 0, "amount_kopeks": 40_000}
    assert stats == {
        "total": 4,
        "pending": 1,
        "paid": 2,
        "cancelled": 1,
        "amount_kopeks": 100_000,
        "paid_amount_kopeks": 60_000,
        "by_method": {
            "fakepay": fakepay | {"paid_amount_kopeks": 20_000},
            "other": other | {"paid_amount_kopeks": 40_000},
        },
        "by_day": [
            {"date": str(two_days_ago), "method": "other", **other, "paid_amount_kopeks": 40_000},
            {"date": str(today), "method": "fakepay", **fakepay, "paid_amount_kopeks": 20_000},
        ],
    }
    narrowed = (await admin.get(f"{ADMIN}/search/stats", params={"search": "bobby"})).json()
    assert (narrowed["total"], narrowed["paid"], narrowed["cancelled"], list(narrowed["by_method"])) == (
        2,
        1,
        1,
        ["fakepay"],
    )


async def test_pages_by_number_and_by_cursor_while_payments_are_made(admin, admin_user, people, new_payment):
    ann = people["ann"]
    made = [(await new_payment(ann.id, 10_000 + n, provider="fakepay")).id for n in range(25)]
    newest_first = made[::-1]
    second = (await admin.get(ADMIN, params={"page": 2, "per_page": 10})).json()
    assert ([i["id"] for i in second["items"]], second["total"], second["pages"]) == (
        newest_first[10:20],
        25,
        3,
    )
    seen: list[int] = []
    cursor: str | None = None
    for turn in range(3):
        params: dict[str, Any] = {"per_page": 10} | ({"cursor": cursor} if cursor else {})
        page = (await admin.get(f"{ADMIN}/search", params=params)).json()
        seen += [item["id"] for item in page["items"]]
        cursor = page["next_cursor"]
        for n in range(5):  # new payments meanwhile: newer than every cursor, never answered again
            await new_payment(ann.id, 90_000 + 10 * turn + n, provider="fakepay")
    assert seen == newest_first and cursor is None
    for bad in ("garbage!", "bm90LWEta2V5", "MjAyNi0wMS0wMXww"):
        refused = await admin.get(ADMIN, params={"cursor": bad})
        assert (refused.status_code, refused.json()) == (400, {"detail": "Invalid cursor"}), bad


async def test_one_payment_of_any_user(admin, admin_user, people, new_payment, fail):
    bob = people["bob"]
    payment = await new_payment(bob.id, 25_000, provider_payment_id="fp-9", provider="fakepay")
    await fail("fp-9", "failed", "card declined")
    response = await admin.get(f"{ADMIN}/fakepay/{payment.id}")
    assert response.status_code == 200
    shown = response.json()
    assert (shown["id"], shown["user_id"], shown["user_username"], shown["is_checkable"]) == (
        payment.id,
        bob.id,
        "bobby",
        False,
    )
    assert (shown["status"], shown["decline_reason"], shown["user_email"]) == (
        "failed",
        "card declined",
        None,
    )
    for path in (f"{ADMIN}/other/{payment.id}", f"{ADMIN}/fakepay/{payment.id + 1}"):
        missing = await admin.get(path)
        assert (missing.status_code, missing.json()) == (404, {"detail": "Payment not found"})


async def test_the_administrators_check_credits_the_user_once(
    admin, admin_user, people, new_payment, fake_provider, balance_over_http, transactions_over_http
):
    ann = people["ann"]
    payment = await new_payment(ann.id, 50_000, provider_payment_id="fp-7", provider="fakepay")
    fake_provider.states["fp-7"] = ProviderStatus("pending")
    unpaid = await admin.post(f"{ADMIN}/fakepay/{payment.id}/check")
    assert unpaid.status_code == 200
    assert unpaid.json() | {"payment": None} == {
        "success": True,
        "message": "Статус не изменился",
        "payment": None,
        "status_changed": False,
        "old_status": "pending",
        "new_status": "pending",
    }
    fake_provider.pay("fp-7", 50_000)
    answers = await asyncio.gather(*(admin.post(f"{ADMIN}/fakepay/{payment.id}/check") for _ in range(5)))
    assert [a.status_code for a in answers] == [200] * 5
    changed = [a.json() for a in answers if a.json()["status_changed"]]
    assert len(changed) == 1
    assert (changed[0]["old_status"], changed[0]["new_status"]) == ("pending", "succeeded")
    assert changed[0]["payment"]["user_username"] == "ann_k" and changed[0]["payment"]["is_paid"] is True
    assert await balance_over_http(ann) == 50_000
    assert [t["amount_kopeks"] for t in await transactions_over_http(ann)] == [50_000]
    done = (await admin.post(f"{ADMIN}/fakepay/{payment.id}/check")).json()
    assert (done["success"], done["message"]) == (False, "Ручная проверка недоступна для этого платежа")
    assert (await admin.post(f"{ADMIN}/other/{payment.id}/check")).status_code == 404
    fake_provider.down = True
    pending = await new_payment(ann.id, 50_000, provider_payment_id="fp-8", provider="fakepay")
    fake_provider.states["fp-8"] = fake_provider.states["fp-7"]
    down = await admin.post(f"{ADMIN}/fakepay/{pending.id}/check")
    assert down.status_code == 502 and "failed to report the payment" in down.json()["detail"]


async def test_a_reader_reads_but_does_not_check_and_every_call_is_audited(
    app, admin, admin_user, people, make_user, new_payment, fake_provider
):
    payment = await new_payment(people["ann"].id, 50_000, provider_payment_id="fp-5", provider="fakepay")
    fake_provider.states["fp-5"] = ProviderStatus("pending")
    reader_user, checker_user = await make_user(first_name="Reader"), await make_user(first_name="Checker")
    check = f"{ADMIN}/fakepay/{payment.id}/check"
    async with await role_holder(app, admin, reader_user.id, ["payments:read"], name="reader") as reader:
        assert (await reader.get(ADMIN)).status_code == 200
        assert (await reader.get(f"{ADMIN}/search/stats")).status_code == 200
        refused = await reader.post(check)
        assert (refused.status_code, refused.json()["detail"]) == (
            403,
            "Permission denied: Permission not granted by any role",
        )
        assert (await reader.get("/cabinet/admin/payment-methods")).status_code == 403
    async with await role_holder(app, admin, checker_user.id, ["payments:edit"], name="checker") as checker:
        assert (await checker.post(check)).status_code == 200
        assert (await checker.get(ADMIN)).status_code == 403
    audit = await admin.get("/cabinet/admin/rbac/audit-log", params={"action": "payments:", "limit": 200})
    assert audit.status_code == 200
    rows = {
        (row["user_id"], row["action"], row["status"], row["request_method"], row["request_path"])
        for row in audit.json()["items"]
    }
    assert rows == {
        (reader_user.id, "payments:read", "success", "GET", ADMIN),
        (reader_user.id, "payments:read", "success", "GET", f"{ADMIN}/search/stats"),
        (reader_user.id, "payments:edit", "denied", "POST", check),
        (checker_user.id, "payments:edit", "success", "POST", check),
        (checker_user.id, "payments:read", "denied", "GET", ADMIN),
    }


async def test_method_configuration_changes_are_audited(app, admin, admin_user, make_user):
    editor_user = await make_user(first_name="Editor")
    grants = ["payment_methods:read", "payment_methods:edit"]
    async with await role_holder(app, admin, editor_user.id, grants, name="editor") as editor:
        assert (await editor.get("/cabinet/admin/payment-methods")).status_code == 200
        assert (
            await editor.put("/cabinet/admin/payment-methods/order", json={"method_ids": []})
        ).status_code == 200
        assert (await editor.get(ADMIN)).status_code == 403
    audit = await admin.get("/cabinet/admin/rbac/audit-log", params={"user_id": editor_user.id})
    assert {(row["action"], row["status"], row["request_method"]) for row in audit.json()["items"]} == {
        ("payment_methods:read", "success", "GET"),
        ("payment_methods:edit", "success", "PUT"),
        ("payments:read", "denied", "GET"),
    }


async def test_times_at_the_ends_of_the_calendar(admin, admin_user, people, new_payment):
    payment = await new_payment(people["ann"].id, 10_000, provider="fakepay")
    ends = {"date_from": "0001-01-01T00:00:00+05:00", "date_to": "9999-12-31T23:59:59-05:00"}
    for path in (f"{ADMIN}/search", f"{ADMIN}/search/stats"):
        response = await admin.get(path, params=ends)
        assert response.status_code == 200, response.text
    assert await found(admin, **ends) == [payment.id]
    year_one = "MDAwMS0wMS0wMVQwMDowMDowMCswNTowMHwx"  # "0001-01-01T00:00:00+05:00|1"
    refused = await admin.get(f"{ADMIN}/search", params={"cursor": year_one})
    assert (refused.status_code, refused.json()) == (400, {"detail": "Invalid cursor"})

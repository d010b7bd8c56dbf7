"""Each action over HTTP, as one JSON answer: its result per target, and the change made by
the owning plugin (the rows as committed, the events it published)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from subsvc_billing.api import Transaction
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.db import utcnow

from .conftest import execute


def summary(body: dict[str, Any]) -> tuple[int, int, int, int]:
    return body["total"], body["success_count"], body["error_count"], body["skipped_count"]


async def test_add_balance_credits_each_user_once_with_a_deposit(admin, users, rows, reload, outbox):
    ids = await users(3)
    response = await execute(
        admin, "add_balance", user_ids=[*ids, ids[0], 999_999], params={"amount_kopeks": 1500}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert summary(body) == (4, 3, 0, 1)
    assert body["action"] == "add_balance" and body["dry_run"] is False
    assert [r["user_id"] for r in body["results"]] == [*ids, 999_999]
    assert body["results"][0]["success"] is True
    assert body["results"][0]["message"] == "Added 15.00₽ to balance (now 15.00₽)"
    assert body["results"][0]["username"].startswith("u")
    assert body["results"][3] == {
        "user_id": 999_999,
        "success": False,
        "message": "User not found",
        "username": None,
        "subscription_id": None,
    }
    for user_id in ids:
        assert (await reload(User, user_id)).balance_kopeks == 1500
    deposits = await rows(Transaction)
    assert sorted(t.user_id for t in deposits) == sorted(ids)
    assert {t.description for t in deposits} == {"Массовое начисление баланса"}
    assert {t.external_id for t in deposits} == {f"bulk:{body['run_id']}:{n}" for n in (1, 2, 3)}
    events = [kind for kind, _ in await outbox()]
    assert events.count("transaction.created") == 3
    completed = [payload for kind, payload in await outbox() if kind == "bulk.completed"]
    assert completed == [
        {
            "run_id": body["run_id"],
            "action": "add_balance",
            "actor_user_id": 1,
            "status": "completed",
            "total": 4,
            "done": 4,
            "success_count": 3,
            "error_count": 0,
            "skipped_count": 1,
            "dry_run": False,
        }
    ]


async def test_a_dry_run_changes_nothing(admin, users, reload, rows):
    ids = await users(2)
    response = await execute(admin, "add_balance", user_ids=ids, params={"amount_kopeks": 100}, dry_run=True)
    body = response.json()
    assert summary(body) == (2, 2, 0, 0) and body["dry_run"] is True
    assert body["results"][0]["message"] == "Would add 1.00₽ to balance"
    assert (await reload(User, ids[0])).balance_kopeks == 0
    assert await rows(Transaction) == []


async def test_extend_and_add_days_move_the_end_and_queue_the_panel(
    admin, users, make_subscription, reload, outbox
):
    ids = await users(3)
    first = await make_subscription(await reload(User, ids[0]), status="active", days=10)
    ended = await make_subscription(await reload(User, ids[1]), status="expired", days=-5)
    for action in ("extend_subscription", "add_days"):
        response = await execute(admin, action, user_ids=ids, params={"days": 7})
        body = response.json()
        assert summary(body) == (3, 2, 1, 0)
        assert body["results"][0]["message"] == "Subscription extended by 7 days"
        assert body["results"][2] == {
            "user_id": ids[2],
            "success": False,
            "message": "No subscription found",
            "username": f"u{600_000_002}",
            "subscription_id": None,
        }
    extended = await reload(Subscription, first.id)
    assert extended.end_date - first.end_date == timedelta(days=14)
    revived = await reload(Subscription, ended.id)
    assert revived.status == "active" and revived.end_date > utcnow() + timedelta(days=13)
    changed = [p for kind, p in await outbox() if kind == "subscription.changed"]
    assert len(changed) == 4


async def test_subscription_ids_name_subscriptions(admin, users, make_subscription, reload):
    ids = await users(2)
    one = await make_subscription(await reload(User, ids[0]), status="active", days=10)
    two = await make_subscription(await reload(User, ids[1]), status="active", days=10)
    response = await execute(
        admin, "set_devices", subscription_ids=[one.id, two.id, 424242], params={"device_limit": 5}
    )
    body = response.json()
    assert summary(body) == (3, 2, 0, 1)
    assert [(r["user_id"], r["subscription_id"]) for r in body["results"]] == [
        (ids[0], one.id),
        (ids[1], two.id),
        (0, 424242),
    ]
    assert body["results"][2]["message"] == "Subscription not found"
    assert (await reload(Subscription, one.id)).device_limit == 5


async def test_cancel_then_activate(admin, users, make_subscription, reload):
    ids = await users(1)
    sub = await make_subscription(await reload(User, ids[0]), status="active", days=10)
    cancelled = await execute(admin, "cancel_subscription", user_ids=ids)
    assert cancelled.json()["results"][0]["message"] == "Subscription cancelled"
    assert (await reload(Subscription, sub.id)).status == "expired"
    activated = await execute(admin, "activate_subscription", user_ids=ids)
    assert activated.json()["results"][0]["message"] == "Subscription activated"
    row = await reload(Subscription, sub.id)
    assert row.status == "active" and row.end_date > utcnow() + timedelta(days=29)


async def test_add_traffic_to_limited_ones_only(admin, users, make_subscription, reload):
    ids = await users(2)
    limited = await make_subscription(await reload(User, ids[0]), status="active", traffic_limit_gb=50)
    await make_subscription(await reload(User, ids[1]), status="active", traffic_limit_gb=0)
    body = (await execute(admin, "add_traffic", user_ids=ids, params={"traffic_gb": 10})).json()
    assert [r["message"] for r in body["results"]] == ["Added 10 GB traffic", "Traffic is unlimited"]
    assert (await reload(Subscription, limited.id)).traffic_limit_gb == 60


async def test_change_tariff_and_grant_subscription(
    admin, users, make_subscription, make_tariff, reload, rows
):
    ids = await users(2)
    basic = await make_tariff(name="Basic", device_limit=1)
    pro = await make_tariff(name="Pro", device_limit=3, traffic_limit_gb=100, allowed_squads=["sq-1"])
    sub = await make_subscription(
        await reload(User, ids[0]), status="active", tariff_id=basic.id, device_limit=2
    )
    changed = await execute(admin, "change_tariff", user_ids=[ids[0]], params={"tariff_id": pro.id})
    assert changed.json()["results"][0]["message"] == "Tariff changed to Pro"
    row = await reload(Subscription, sub.id)
    assert (row.tariff_id, row.device_limit, row.traffic_limit_gb) == (
        pro.id,
        4,
        100,
    )  # one bought device kept
    granted = await execute(
        admin, "grant_subscription", user_ids=ids, params={"tariff_id": pro.id, "days": 30}
    )
    assert [r["message"] for r in granted.json()["results"]] == [
        "Already has an active subscription",
        "Subscription granted: Pro for 30 days",
    ]
    new = [s for s in await rows(Subscription) if s.user_id == ids[1]]
    assert len(new) == 1 and new[0].tariff_id == pro.id and new[0].connected_squads == ["sq-1"]


async def test_assign_promo_group_and_back_to_the_default(admin, users, make_group, reload):
    ids = await users(2)
    vip = await make_group(name="VIP")
    body = (
        await execute(admin, "assign_promo_group", user_ids=ids, params={"promo_group_id": vip.id})
    ).json()
    assert body["results"][0]["message"] == "Promo group set to VIP"
    assert (await reload(User, ids[1])).promo_group_id == vip.id
    reset = (await execute(admin, "assign_promo_group", user_ids=ids, params={})).json()
    assert reset["success_count"] == 2
    assert (await reload(User, ids[1])).promo_group_id != vip.id


async def test_delete_subscription_keeps_active_paid_ones_unless_forced(
    admin, users, make_subscription, reload
):
    ids = await users(2)
    paid = await make_subscription(await reload(User, ids[0]), status="active", days=10)
    ended = await make_subscription(await reload(User, ids[1]), status="expired", days=-1)
    body = (await execute(admin, "delete_subscription", user_ids=ids)).json()
    assert [r["success"] for r in body["results"]] == [False, True]
    assert body["results"][0]["message"].startswith("Skipped: active paid subscription")
    assert await reload(Subscription, ended.id) is None
    forced = await execute(
        admin, "delete_subscription", user_ids=[ids[0]], params={"force_delete_active_paid": True}
    )
    assert forced.json()["success_count"] == 1
    assert await reload(Subscription, paid.id) is None


async def test_delete_user_but_not_oneself(admin, users, make_subscription, reload, outbox):
    me = (await users(1))[0]
    assert me == 1  # the admin client's user
    ids = await users(2)
    await make_subscription(await reload(User, ids[0]), status="active", days=10)
    body = (await execute(admin, "delete_user", user_ids=[me, *ids])).json()
    assert [r["message"] for r in body["results"]] == [
        "You cannot delete yourself",
        "User deleted",
        "User deleted",
    ]
    assert await reload(User, ids[0]) is None and await reload(User, me) is not None
    disabled = [p for kind, p in await outbox() if kind == "subscription.changed"]
    assert len(disabled) == 1


@pytest.mark.parametrize(
    ("action", "params", "detail"),
    [
        ("extend_subscription", {}, "params.days must be a positive integer for this action"),
        ("change_tariff", {}, "params.tariff_id is required for change_tariff action"),
        ("add_traffic", {}, "params.traffic_gb must be a positive integer for add_traffic action"),
        ("add_balance", {}, "params.amount_kopeks must be a positive integer for add_balance action"),
        ("set_devices", {}, "params.device_limit must be a positive integer for set_devices action"),
    ],
)
async def test_a_missing_parameter_is_400(admin, action, params, detail):
    response = await execute(admin, action, user_ids=[1], params=params)
    assert response.status_code == 400
    assert response.json() == {"detail": detail}


async def test_refusals_before_any_run(admin, rows):
    from subsvc_bulk_actions.models import BulkRun

    missing_tariff = await execute(admin, "change_tariff", user_ids=[1], params={"tariff_id": 77})
    assert (missing_tariff.status_code, missing_tariff.json()) == (404, {"detail": "Tariff not found"})
    missing_group = await execute(admin, "assign_promo_group", user_ids=[1], params={"promo_group_id": 77})
    assert (missing_group.status_code, missing_group.json()) == (404, {"detail": "Promo group not found"})
    on_subscriptions = await execute(admin, "add_balance", subscription_ids=[1], params={"amount_kopeks": 1})
    assert on_subscriptions.status_code == 400
    no_targets = await execute(admin, "cancel_subscription")
    assert no_targets.json() == {"detail": "user_ids or subscription_ids is required"}
    invalid = await execute(admin, "explode", user_ids=[1])
    assert invalid.status_code == 422
    assert await rows(BulkRun) == []

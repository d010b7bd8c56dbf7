"""`GET /cabinet/admin/users`: filters, orders, pagination and the items; the referrals list."""

from __future__ import annotations

from datetime import timedelta

import pytest

from subsvc.db import utcnow

BASE = "/cabinet/admin/users"


def _ids(response):
    return [item["id"] for item in response.json()["users"]]


async def test_newest_first_with_total_offset_and_limit(admin, make_user):
    now = utcnow()
    users = [await make_user(username=f"u{i}", created_at=now - timedelta(hours=10 - i)) for i in range(5)]
    response = await admin.get(BASE, params={"limit": 2, "offset": 1})
    assert response.status_code == 200
    body = response.json()
    assert (body["total"], body["limit"], body["offset"]) == (5, 2, 1)
    assert _ids(response) == [users[3].id, users[2].id]
    assert (await admin.get(BASE, params={"offset": 10})).json() == {
        "users": [],
        "total": 5,
        "offset": 10,
        "limit": 50,
    }


async def test_an_item_shows_subscription_group_spending_and_restrictions(
    admin, make_user, make_subscription, make_transaction
):
    user = await make_user(username="ann", first_name="Ann", last_name="Lee", balance_kopeks=12345)
    await make_subscription(user, days=10, is_trial=True)
    await make_transaction(user, "subscription_payment", -3000)
    await make_transaction(user, "subscription_payment", 2000)
    await make_transaction(user, "deposit", 99999)
    await make_transaction(user, "subscription_payment", 500, is_completed=False)
    await admin.post(f"{BASE}/{user.id}/restrictions", json={"restriction_topup": True})

    (item,) = (await admin.get(BASE)).json()["users"]
    assert item["full_name"] == "Ann Lee"
    assert (item["balance_kopeks"], item["balance_rubles"]) == (12345, 123.45)
    assert item["has_subscription"] is True
    assert (item["subscription_status"], item["subscription_is_trial"]) == ("active", True)
    assert item["subscription_end_date"] is not None
    assert item["promo_group_id"] == user.promo_group_id
    assert item["promo_group_name"] == "Базовый юзер"
    assert (item["total_spent_kopeks"], item["purchase_count"]) == (5000, 2)
    assert (item["has_restrictions"], item["restriction_topup"], item["restriction_subscription"]) == (
        True,
        True,
        False,
    )


async def test_full_name_falls_back_to_username_then_messenger_id(admin, make_user):
    await make_user(username="nick")
    await make_user(messenger_id=555)
    names = sorted(item["full_name"] for item in (await admin.get(BASE)).json()["users"])
    assert names == ["ID555", "nick"]


async def test_search_status_and_email_filters(admin, make_user):
    ann = await make_user(username="Annabel", email="ann@example.com")
    await make_user(username="bob", email="bob@example.org", status="blocked")
    carl = await make_user(first_name="Carl_Ann", status="blocked")

    assert sorted(_ids(await admin.get(BASE, params={"search": "ann"}))) == sorted([ann.id, carl.id])
    assert _ids(await admin.get(BASE, params={"search": "ann", "status": "blocked"})) == [carl.id]
    assert _ids(await admin.get(BASE, params={"email": "EXAMPLE.COM"})) == [ann.id]
    assert _ids(await admin.get(BASE, params={"email": "%"})) == []  # taken literally
    assert _ids(await admin.get(BASE, params={"search": str(ann.messenger_id)})) == [ann.id]
    response = await admin.get(BASE, params={"search": "ann", "status": "blocked"})
    assert response.json()["total"] == 1


async def test_a_new_user_shows_in_the_total_at_once(admin, make_user):
    await make_user()
    assert (await admin.get(BASE)).json()["total"] == 1
    await make_user()
    # created in another session of this process: the users plugin's count cache forgets
    assert (await admin.get(BASE)).json()["total"] == 2


@pytest.mark.parametrize("sort_by", ["balance", "traffic", "last_activity", "total_spent", "purchase_count"])
async def test_orders_largest_first(admin, make_user, make_subscription, make_transaction, sort_by):
    now = utcnow()
    low = await make_user(balance_kopeks=10, last_activity=now - timedelta(days=3))
    high = await make_user(balance_kopeks=500, last_activity=now)
    none = await make_user(balance_kopeks=0)
    await make_subscription(low, traffic_used_gb=1.5)
    await make_subscription(high, traffic_used_gb=20.0)
    await make_transaction(low, "subscription_payment", -100)
    for _ in range(2):
        await make_transaction(high, "subscription_payment", -900)

    ids = _ids(await admin.get(BASE, params={"sort_by": sort_by}))
    assert ids == [high.id, low.id, none.id]


async def test_ties_are_newest_first(admin, make_user):
    now = utcnow()
    older = await make_user(created_at=now - timedelta(days=1))
    newer = await make_user(created_at=now)
    assert _ids(await admin.get(BASE, params={"sort_by": "balance"})) == [newer.id, older.id]


@pytest.mark.parametrize(
    ("params", "loc"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"offset": -1}, "offset"),
        ({"status": "gone"}, "status"),
        ({"sort_by": "name"}, "sort_by"),
        ({"search": "x" * 256}, "search"),
        ({"email": "x" * 256}, "email"),
    ],
)
async def test_bounds_are_422(admin, params, loc):
    response = await admin.get(BASE, params=params)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [["query", loc]]


async def test_referrals_are_the_users_this_user_referred(admin, make_user):
    referrer = await make_user(username="ref")
    now = utcnow()
    first = await make_user(referred_by_id=referrer.id, created_at=now - timedelta(hours=1))
    second = await make_user(referred_by_id=referrer.id, created_at=now)
    await make_user()  # not referred

    response = await admin.get(f"{BASE}/{referrer.id}/referrals", params={"limit": 1})
    assert response.status_code == 200
    body = response.json()
    assert (body["total"], body["limit"], body["offset"]) == (2, 1, 0)
    assert _ids(response) == [second.id]
    assert _ids(await admin.get(f"{BASE}/{referrer.id}/referrals", params={"offset": 1})) == [first.id]
    assert (await admin.get(f"{BASE}/{first.id}/referrals")).json()["total"] == 0
    assert (await admin.get(f"{BASE}/{referrer.id}/referrals", params={"limit": 201})).status_code == 422


async def test_an_offset_beyond_any_row_is_an_empty_page(admin, make_user):
    await make_user()
    response = await admin.get(BASE, params={"offset": 10**6})
    assert response.status_code == 200
    assert (response.json()["users"], response.json()["total"]) == ([], 1)


async def test_an_offset_beyond_integer_is_422(admin):
    response = await admin.get(BASE, params={"offset": 10**30})
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["query", "offset"], "less_than_equal")
    ]

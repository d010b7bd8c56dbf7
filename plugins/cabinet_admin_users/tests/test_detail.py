"""A user's detail (by internal id and by messenger id), transactions, tariffs and gifts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_subscriptions.models import TrafficPurchase

from subsvc.db import utcnow

BASE = "/cabinet/admin/users"


async def test_detail_gathers_the_user(admin, make_user, make_subscription, make_transaction, db):
    referrer = await make_user(username="boss")
    user = await make_user(
        username="ann",
        first_name="Ann",
        referred_by_id=referrer.id,
        balance_kopeks=2550,
        email="ann@example.com",
        email_verified=True,
        has_had_paid_subscription=True,
    )
    await make_user(referred_by_id=user.id)
    subscription = await make_subscription(user, days=10.5, traffic_limit_gb=50, purchased_traffic_gb=5)
    async with db.session() as session:
        session.add(
            TrafficPurchase(
                subscription_id=subscription.id, traffic_gb=5, expires_at=utcnow() + timedelta(days=3)
            )
        )
        await session.commit()
    await make_transaction(user, "subscription_payment", -1000, description="month")
    await make_transaction(user, "withdrawal", 300)
    await make_transaction(user, "referral_reward", 70)
    await admin.post(f"{BASE}/{user.id}/referral-commission", json={"commission_percent": 15})
    await admin.post(
        f"{BASE}/{user.id}/restrictions",
        json={"restriction_subscription": True, "restriction_reason": "chargeback"},
    )

    response = await admin.get(f"{BASE}/{user.id}")
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["messenger_id"], body["full_name"]) == (user.id, user.messenger_id, "Ann")
    assert (body["balance_kopeks"], body["balance_rubles"]) == (2550, 25.5)
    assert (body["email"], body["email_verified"], body["has_had_paid_subscription"]) == (
        "ann@example.com",
        True,
        True,
    )
    sub = body["subscription"]
    assert (sub["id"], sub["status"], sub["is_trial"], sub["is_active"]) == (
        subscription.id,
        "active",
        False,
        True,
    )
    assert (sub["days_remaining"], sub["traffic_limit_gb"], sub["purchased_traffic_gb"]) == (10, 50, 5)
    (purchase,) = sub["traffic_purchases"]
    assert (purchase["traffic_gb"], purchase["days_remaining"], purchase["is_expired"]) == (5, 2, False)
    assert body["promo_group"]["name"] == "Базовый юзер" and body["promo_group"]["is_default"] is True
    assert body["referral"] == {
        "referral_code": user.referral_code,
        "referrals_count": 1,
        "total_earnings_kopeks": 70,
        "commission_percent": 15,
        "referred_by_id": referrer.id,
        "referred_by_username": "boss",
    }
    assert (body["total_spent_kopeks"], body["purchase_count"]) == (1000, 1)
    assert (body["restriction_topup"], body["restriction_subscription"], body["restriction_reason"]) == (
        False,
        True,
        "chargeback",
    )
    amounts = {item["type"]: item["amount_kopeks"] for item in body["recent_transactions"]}
    assert amounts == {"subscription_payment": -1000, "withdrawal": -300, "referral_reward": 70}
    assert body["panel_uuid"] is None


async def test_by_messenger_id_answers_the_same_detail(admin, make_user):
    user = await make_user(messenger_id=123456789012)
    by_messenger = await admin.get(f"{BASE}/by-messenger/123456789012")
    assert by_messenger.status_code == 200
    assert by_messenger.json() == (await admin.get(f"{BASE}/{user.id}")).json()
    # the internal id is not a messenger id here (no fallback)
    assert (await admin.get(f"{BASE}/by-messenger/{user.id}")).status_code == 404
    assert (await admin.get(f"{BASE}/by-messenger/{2**62}")).status_code == 404  # a BIGINT nobody has
    beyond = await admin.get(f"{BASE}/by-messenger/99999999999999999999999")  # beyond BIGINT
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["path", "messenger_id"], "less_than_equal")
    ]


async def test_the_path_id_is_the_internal_id_not_a_messenger_id(admin, make_user):
    user = await make_user(messenger_id=424242)
    assert (await admin.get(f"{BASE}/424242")).status_code == 404
    assert (await admin.get(f"{BASE}/{user.id}")).json()["messenger_id"] == 424242


async def test_a_user_without_subscription_or_referrer(admin, make_user):
    user = await make_user()
    body = (await admin.get(f"{BASE}/{user.id}")).json()
    assert body["subscription"] is None
    assert body["referral"]["referred_by_id"] is None and body["referral"]["commission_percent"] is None
    assert body["recent_transactions"] == []


async def test_transactions_newest_first_with_type_filter_and_signs(admin, make_user, make_transaction):
    user = await make_user()
    other = await make_user()
    now = utcnow()
    deposit = await make_transaction(user, "deposit", 1000, created_at=now - timedelta(hours=3))
    payment = await make_transaction(user, "subscription_payment", -400, created_at=now - timedelta(hours=2))
    withdrawal = await make_transaction(user, "withdrawal", 100, created_at=now - timedelta(hours=1))
    await make_transaction(other, "deposit", 5)

    body = (await admin.get(f"{BASE}/{user.id}/transactions")).json()
    assert (body["total"], body["offset"], body["limit"]) == (3, 0, 50)
    assert [(t["id"], t["amount_kopeks"], t["amount_rubles"]) for t in body["transactions"]] == [
        (withdrawal.id, -100, -1.0),
        (payment.id, -400, -4.0),
        (deposit.id, 1000, 10.0),
    ]
    page = (await admin.get(f"{BASE}/{user.id}/transactions", params={"limit": 1, "offset": 1})).json()
    assert ([t["id"] for t in page["transactions"]], page["total"]) == ([payment.id], 3)
    only = (await admin.get(f"{BASE}/{user.id}/transactions", params={"transaction_type": "deposit"})).json()
    assert ([t["id"] for t in only["transactions"]], only["total"]) == ([deposit.id], 1)


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 201}, {"offset": -1}])
async def test_transactions_bounds_are_422(admin, make_user, params):
    user = await make_user()
    assert (await admin.get(f"{BASE}/{user.id}/transactions", params=params)).status_code == 422


async def test_without_a_tariffs_plugin_no_tariffs_are_available(admin, make_user):
    user = await make_user()
    response = await admin.get(f"{BASE}/{user.id}/available-tariffs", params={"include_inactive": True})
    assert response.status_code == 200
    assert response.json() == {
        "user_id": user.id,
        "promo_group_id": user.promo_group_id,
        "promo_group_name": "Базовый юзер",
        "tariffs": [],
        "total": 0,
        "current_tariff_id": None,
        "current_tariff_name": None,
    }
    bad = await admin.get(f"{BASE}/{user.id}/available-tariffs", params={"include_inactive": "maybe"})
    assert bad.status_code == 422


async def test_without_a_gifts_plugin_there_are_no_gifts(admin, make_user):
    user = await make_user()
    response = await admin.get(f"{BASE}/{user.id}/gifts")
    assert response.json() == {"sent": [], "received": [], "sent_total": 0, "received_total": 0}


async def test_reads_change_nothing(admin, make_user, reload):
    user = await make_user()
    for path in ("", "/transactions", "/referrals", "/gifts", "/available-tariffs"):
        assert (await admin.get(f"{BASE}/{user.id}{path}")).status_code == 200
    assert await reload(UserAdminSettings, user.id) is None


async def test_a_transactions_offset_beyond_any_row_is_an_empty_page(admin, make_user, make_transaction):
    user = await make_user()
    await make_transaction(user, "deposit", 100)
    body = (await admin.get(f"{BASE}/{user.id}/transactions", params={"offset": 10**6})).json()
    assert (body["transactions"], body["total"]) == ([], 1)


async def test_a_transactions_offset_beyond_integer_is_422(admin, make_user):
    user = await make_user()
    response = await admin.get(f"{BASE}/{user.id}/transactions", params={"offset": 10**30})
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["query", "offset"], "less_than_equal")
    ]

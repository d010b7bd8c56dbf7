"""`POST /cabinet/promocode/activate`: every type's effect through the services that own the
data, once per user, the refusals with the reference's texts — and that a refusal changes
nothing."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest
from subsvc_billing.models import Transaction
from subsvc_promocodes.models import PromoCode, PromoCodeUse
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import utcnow

ACTIVATE = "/cabinet/promocode/activate"


@pytest.fixture
def activate(cabinet):
    """``await activate(user_id, "CODE")``: the response of that user's activation."""

    async def post(user_id: int, code: str):
        async with cabinet(user_id) as http:
            return await http.post(ACTIVATE, json={"code": code})

    return post


async def _nothing_happened(rows, code: dict, user: dict) -> None:
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == code["current_uses"]
    assert await rows(PromoCodeUse, user_id=user["id"]) == []
    assert await rows(Transaction, user_id=user["id"]) == []
    (stored,) = await rows(User, id=user["id"])
    assert stored.balance_kopeks == user["balance_kopeks"]


async def test_a_balance_code_credits_once_through_billing(make_user, make_code, activate, rows, outbox):
    user = await make_user()
    code = await make_code(code="BONUS", balance_bonus_kopeks=15_050, max_uses=5)
    response = await activate(user["id"], "  bonus ")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "Promo code activated successfully",
        "balance_before": 0.0,
        "balance_after": 150.5,
        "bonus_description": "Баланс пополнен на 150.5₽",
    }
    (stored,) = await rows(User, id=user["id"])
    assert (stored.balance_kopeks, stored.has_made_first_topup) == (15_050, True)
    (deposit,) = await rows(Transaction, user_id=user["id"])
    assert (deposit.type, deposit.amount_kopeks, deposit.payment_method) == ("deposit", 15_050, "manual")
    assert (deposit.description, deposit.balance_after_kopeks) == ("Бонус по промокоду BONUS", 15_050)
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 1
    (use,) = await rows(PromoCodeUse)
    assert (use.promocode_id, use.user_id) == (code["id"], user["id"])
    events = await outbox()
    activated = [payload for kind, payload in events if kind == "promocode.activated"]
    assert activated == [
        {
            **activated[0],
            "promocode_id": code["id"],
            "code": "BONUS",
            "type": "balance",
            "user_id": user["id"],
            "balance_bonus_kopeks": 15_050,
        }
    ]
    assert Counter(kind for kind, _ in events)["transaction.created"] == 1

    again = await activate(user["id"], "BONUS")
    assert again.status_code == 400
    assert again.json() == {"detail": "You have already used this promo code"}
    assert len(await rows(Transaction, user_id=user["id"])) == 1


async def test_the_answer_reports_the_balance_before(make_user, make_code, activate, client):
    user = await make_user()
    await client.post(f"/users/{user['id']}/balance", json={"amount_kopeks": 1_000})
    await make_code(code="MORE", balance_bonus_kopeks=500)
    body = (await activate(user["id"], "MORE")).json()
    assert (body["balance_before"], body["balance_after"]) == (10.0, 15.0)


async def test_the_record_follows_the_uses(admin, make_user, make_code, activate):
    code = await make_code(code="TWICE", max_uses=2)
    for _ in range(2):
        assert (await activate((await make_user())["id"], "TWICE")).status_code == 200
    record = (await admin.get(f"/cabinet/admin/promocodes/{code['id']}")).json()
    assert (record["current_uses"], record["uses_left"], record["is_valid"]) == (2, 0, False)


@pytest.mark.parametrize(
    ("fields", "detail"),
    [
        ({"is_active": False}, "Promo code is deactivated"),
        ({"valid_from": "2999-01-01T00:00:00Z"}, "Promo code is not yet active"),
        (
            {"valid_from": "2000-01-01T00:00:00Z", "valid_until": "2001-01-01T00:00:00Z"},
            "Promo code has expired",
        ),
    ],
)
async def test_a_code_not_valid_now_is_refused(make_user, make_code, activate, rows, fields, detail):
    user = await make_user()
    code = await make_code(code="NOPE", **fields)
    response = await activate(user["id"], "NOPE")
    assert response.status_code == 400
    assert response.json() == {"detail": detail}
    await _nothing_happened(rows, code, user)


async def test_an_unknown_code_is_refused(make_user, make_code, activate):
    user = await make_user()
    await make_code(code="REAL")
    for text in ("FAKE", " "):
        response = await activate(user["id"], text)
        assert response.status_code == 400
        assert response.json() == {"detail": "Promo code not found"}


async def test_a_used_up_code_is_refused(make_user, make_code, activate, rows):
    code = await make_code(code="ONE")
    assert (await activate((await make_user())["id"], "ONE")).status_code == 200
    late = await make_user()
    response = await activate(late["id"], "ONE")
    assert response.status_code == 400
    assert response.json() == {"detail": "Promo code has been fully used"}
    assert await rows(PromoCodeUse, user_id=late["id"]) == []
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 1


async def test_an_unlimited_code_serves_every_user(make_user, make_code, activate, rows):
    code = await make_code(code="ALL", max_uses=0, balance_bonus_kopeks=100)
    users = [await make_user() for _ in range(4)]
    assert [(await activate(u["id"], "all")).status_code for u in users] == [200] * 4
    (row,) = await rows(PromoCode, id=code["id"])
    assert (row.current_uses, row.max_uses) == (4, 999_999)


async def test_first_purchase_only_codes_refuse_users_who_paid_before(
    make_user, make_code, activate, client, rows
):
    code = await make_code(code="FIRST", first_purchase_only=True)
    veteran = await make_user()
    await client.patch(f"/users/{veteran['id']}", json={"has_had_paid_subscription": True})
    response = await activate(veteran["id"], "FIRST")
    assert response.status_code == 400
    assert response.json() == {"detail": "This promo code is only available for first purchase"}
    await _nothing_happened(rows, code, veteran)
    assert (await activate((await make_user())["id"], "FIRST")).status_code == 200


@pytest.fixture
def daily_limit_of_two(monkeypatch):
    monkeypatch.setenv("PROMOCODE_DAILY_ACTIVATION_LIMIT", "2")


async def test_the_daily_limit_stops_a_third_activation(
    daily_limit_of_two, make_user, make_code, activate, rows
):
    user = await make_user()
    for name in ("A1", "A2", "A3"):
        await make_code(code=name, balance_bonus_kopeks=100)
    assert (await activate(user["id"], "A1")).status_code == 200
    assert (await activate(user["id"], "A2")).status_code == 200
    response = await activate(user["id"], "A3")
    assert response.status_code == 400
    assert response.json() == {"detail": "Too many promo code activations today"}
    (stored,) = await rows(User, id=user["id"])
    assert stored.balance_kopeks == 200


async def test_days_extend_the_current_subscription(make_user, make_code, make_subscription, activate, rows):
    user = await make_user()
    subscription = await make_subscription(user["id"], duration_days=10, is_trial=True)
    await make_code(code="DAYS", type="subscription_days", subscription_days=30)
    response = await activate(user["id"], "DAYS")
    assert response.status_code == 200
    assert response.json()["bonus_description"] == "Подписка продлена на 30 дней"
    (row,) = await rows(Subscription, user_id=user["id"])
    before = datetime.fromisoformat(subscription["end_date"])
    assert row.end_date - before == timedelta(days=30)
    assert (row.status, row.is_trial) == ("active", True)  # a free grant: still a trial
    (stored,) = await rows(User, id=user["id"])
    assert stored.has_had_paid_subscription is True  # as the reference marks it


async def test_days_revive_an_expired_subscription(
    make_user, make_code, make_subscription, activate, rows, db
):
    user = await make_user()
    await make_subscription(user["id"], duration_days=10)
    async with db.session() as session:
        past = utcnow() - timedelta(days=5)
        table = Subscription.__table__
        await session.exec(table.update().values(status="expired", end_date=past))
        await session.commit()
    await make_code(code="BACK", type="subscription_days", subscription_days=7)
    before = utcnow()
    assert (await activate(user["id"], "BACK")).status_code == 200
    (revived,) = await rows(Subscription, user_id=user["id"])
    assert revived.status == "active"
    assert before + timedelta(days=7) <= revived.end_date <= utcnow() + timedelta(days=7)


async def test_days_without_a_subscription_are_refused(make_user, make_code, activate, rows):
    user = await make_user()
    code = await make_code(code="DAYS", type="subscription_days", subscription_days=30)
    response = await activate(user["id"], "DAYS")
    assert response.status_code == 400
    assert response.json() == {"detail": "This promo code requires an active or expired subscription"}
    await _nothing_happened(rows, code, user)
    assert await rows(Subscription) == []


async def test_a_bonus_set_grants_balance_days_and_traffic(
    make_user, make_code, make_subscription, activate, rows
):
    user = await make_user()
    subscription = await make_subscription(user["id"], duration_days=10, traffic_limit_gb=50)
    await make_code(
        code="SET", type="balance_and_days", balance_bonus_kopeks=2_500, subscription_days=3, traffic_gb=20
    )
    response = await activate(user["id"], "SET")
    assert response.status_code == 200
    assert response.json()["bonus_description"] == (
        "Подписка продлена на 3 дней\nДобавлено 20 ГБ трафика\nБаланс пополнен на 25.0₽"
    )
    (row,) = await rows(Subscription, user_id=user["id"])
    assert row.end_date - datetime.fromisoformat(subscription["end_date"]) == timedelta(days=3)
    assert (row.traffic_limit_gb, row.purchased_traffic_gb) == (70, 20)
    (stored,) = await rows(User, id=user["id"])
    assert stored.balance_kopeks == 2_500


async def test_a_bonus_set_of_balance_alone_needs_no_subscription(make_user, make_code, activate, rows):
    user = await make_user()
    await make_code(code="CASH", type="balance_and_days", balance_bonus_kopeks=300)
    assert (await activate(user["id"], "CASH")).status_code == 200
    (stored,) = await rows(User, id=user["id"])
    assert stored.balance_kopeks == 300


async def test_a_failed_days_step_takes_the_balance_back_too(make_user, make_code, activate, rows):
    user = await make_user()
    code = await make_code(
        code="BOTH", type="balance_and_days", balance_bonus_kopeks=300, subscription_days=5
    )
    response = await activate(user["id"], "BOTH")
    assert response.status_code == 400
    await _nothing_happened(rows, code, user)


async def test_a_trial_code_starts_a_trial_for_a_user_without_a_subscription(
    make_user, make_code, make_subscription, activate, rows
):
    newcomer = await make_user()
    await make_code(code="TRY", type="trial_subscription", subscription_days=5, max_uses=0)
    before = utcnow()
    response = await activate(newcomer["id"], "TRY")
    assert response.status_code == 200
    assert response.json()["bonus_description"] == "Активирована тестовая подписка на 5 дней"
    (trial,) = await rows(Subscription, user_id=newcomer["id"])
    assert (trial.is_trial, trial.status) == (True, "active")
    assert before + timedelta(days=5) <= trial.end_date <= utcnow() + timedelta(days=5)

    subscriber = await make_user()
    await make_subscription(subscriber["id"])
    refused = await activate(subscriber["id"], "TRY")
    assert refused.status_code == 400
    assert refused.json() == {"detail": "This promo code is only for users without a subscription"}
    assert len(await rows(Subscription, user_id=subscriber["id"])) == 1
    assert await rows(PromoCodeUse, user_id=subscriber["id"]) == []


async def test_a_promo_group_code_moves_the_user_into_its_group(make_user, make_code, activate, client, rows):
    base = (await client.post("/promo-groups", json={"name": "Base", "priority": 5})).json()
    vip = (await client.post("/promo-groups", json={"name": "VIP", "priority": 10})).json()
    user = await make_user()
    assert user["promo_group"]["id"] == base["id"]
    await make_code(code="VIP", type="promo_group", promo_group_id=vip["id"], max_uses=0)
    response = await activate(user["id"], "VIP")
    assert response.status_code == 200
    assert response.json()["bonus_description"] == "Назначена промогруппа: VIP"
    (stored,) = await rows(User, id=user["id"])
    assert stored.promo_group_id == vip["id"]
    (use,) = await rows(PromoCodeUse, user_id=user["id"])
    assert use.previous_promo_group_id == base["id"]


async def test_a_user_in_a_higher_priority_group_keeps_it(make_user, make_code, activate, client, rows):
    await client.post("/promo-groups", json={"name": "Base"})
    gold = (await client.post("/promo-groups", json={"name": "Gold", "priority": 50})).json()
    promo = (await client.post("/promo-groups", json={"name": "Promo", "priority": 10})).json()
    user = await make_user(promo_group_id=gold["id"])
    await make_code(code="PROMO", type="promo_group", promo_group_id=promo["id"])
    response = await activate(user["id"], "PROMO")
    assert response.status_code == 200
    assert response.json()["bonus_description"] == "Промогруппа «Gold» сохранена: её приоритет выше"
    (stored,) = await rows(User, id=user["id"])
    assert stored.promo_group_id == gold["id"]


async def test_a_balance_code_with_a_group_grants_both(make_user, make_code, activate, client, rows):
    await client.post("/promo-groups", json={"name": "Base"})
    friends = (await client.post("/promo-groups", json={"name": "Friends"})).json()
    user = await make_user()
    await make_code(code="PAIR", balance_bonus_kopeks=700, promo_group_id=friends["id"])
    body = (await activate(user["id"], "PAIR")).json()
    assert body["bonus_description"] == "Баланс пополнен на 7.0₽\nНазначена промогруппа: Friends"
    (stored,) = await rows(User, id=user["id"])
    assert (stored.balance_kopeks, stored.promo_group_id) == (700, friends["id"])


async def test_a_token_of_a_user_that_does_not_exist_is_404(make_code, activate, rows):
    code = await make_code(code="GHOST")
    response = await activate(987_654, "GHOST")
    assert response.status_code == 404
    assert response.json() == {"detail": "User not found"}
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 0


@pytest.mark.parametrize("body", [{}, {"code": ""}, {"code": "X" * 51}, {"code": 5}])
async def test_a_malformed_body_is_422(make_user, activate, cabinet, body):
    user = await make_user()
    async with cabinet(user["id"]) as http:
        response = await http.post(ACTIVATE, json=body)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [["body", "code"]]


@pytest.mark.parametrize("subsvc_settings_overrides", [{"RATE_LIMITS": ["promocode_activate=3/minute"]}])
async def test_guessing_codes_is_rate_limited(make_user, activate):
    user = await make_user()
    answers = [(await activate(user["id"], f"GUESS{i}")).status_code for i in range(4)]
    assert answers == [400, 400, 400, 429]

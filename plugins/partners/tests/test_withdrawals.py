"""Withdrawals over HTTP: a request reserves its amount at once (a `withdrawal_reserve`
transaction), rejection and cancellation give it back (`withdrawal_release`), completion
keeps it; money exact at every step; the reserved money cannot be spent; concurrent requests
for everything available: one wins."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_billing.api import Transaction
from subsvc_partners.models import WithdrawalAudit, WithdrawalRequest
from subsvc_users.api import User

from subsvc.services import services

BASE = "/cabinet/referral/withdrawal"
ADMIN = "/cabinet/admin/withdrawals"
DETAILS = {"payment_details": "Card 4000 0000 0000 0002"}


async def balance_of(reload, user_id):
    return (await reload(User, user_id)).balance_kopeks


async def transactions_of(rows, user_id):
    return [(t.type, t.amount_kopeks) for t in await rows(Transaction) if t.user_id == user_id]


async def request(member, amount):
    return await member.post(f"{BASE}/create", json={"amount_kopeks": amount, **DETAILS})


async def test_a_request_reserves_and_a_rejection_gives_back(member, admin, enabled, earn, reload, rows):
    await earn(2, 5000)
    created = await request(member, 3000)
    assert created.status_code == 200, created.text
    assert created.json()["status"] == "pending" and created.json()["amount_kopeks"] == 3000
    assert await balance_of(reload, 2) == 2000
    balance = (await member.get(f"{BASE}/balance")).json()
    assert (balance["total_earned"], balance["pending"], balance["withdrawn"]) == (5000, 3000, 0)
    assert (balance["available_referral"], balance["available_total"]) == (2000, 2000)
    assert balance["can_request"] is False
    assert balance["cannot_request_reason"] == "У вас уже есть активная заявка на рассмотрении"
    assert balance["requisites_text"] == "Card number"

    rejected = await admin.post(f"{ADMIN}/{created.json()['id']}/reject", json={"comment": "no"})
    assert rejected.status_code == 200, rejected.text
    assert await balance_of(reload, 2) == 5000
    assert (await transactions_of(rows, 2))[-2:] == [
        ("withdrawal_reserve", 3000),
        ("withdrawal_release", 3000),
    ]
    again = await admin.post(f"{ADMIN}/{created.json()['id']}/reject", json={})
    assert again.status_code == 400 and again.json()["detail"] == "Заявка уже обработана"
    assert await balance_of(reload, 2) == 5000  # released once
    audit = [(a.from_status, a.to_status, a.actor_id) for a in await rows(WithdrawalAudit)]
    assert audit == [(None, "pending", 2), ("pending", "rejected", 1)]
    detail = (await admin.get(f"{ADMIN}/{created.json()['id']}")).json()
    assert detail["status"] == "rejected" and detail["admin_comment"] == "no"
    assert detail["balance_kopeks"] == 5000 and detail["total_earnings_kopeks"] == 5000
    assert detail["risk_analysis"]["risk_score"] == detail["risk_score"]


async def test_approval_keeps_the_reserve_and_completion_finalises(
    member, admin, enabled, earn, reload, rows
):
    await earn(2, 5000)
    request_id = (await request(member, 4000)).json()["id"]
    not_yet = await admin.post(f"{ADMIN}/{request_id}/complete")
    assert not_yet.status_code == 400 and not_yet.json()["detail"] == 'Заявка не в статусе "одобрена"'
    assert (await admin.post(f"{ADMIN}/{request_id}/approve", json={"comment": "ok"})).status_code == 200
    assert await balance_of(reload, 2) == 1000
    assert (await admin.post(f"{ADMIN}/{request_id}/complete")).status_code == 200
    assert await balance_of(reload, 2) == 1000
    assert [t for t in await transactions_of(rows, 2) if t[0].startswith("withdrawal")] == [
        ("withdrawal_reserve", 4000)
    ]
    balance = (await member.get(f"{BASE}/balance")).json()
    assert (balance["withdrawn"], balance["pending"], balance["available_referral"]) == (4000, 0, 1000)
    assert balance["cannot_request_reason"] == "Следующий запрос на вывод будет доступен через 30 дн."
    history = (await member.get(f"{BASE}/history")).json()
    assert history["total"] == 1 and history["items"][0]["status"] == "completed"
    assert history["items"][0]["amount_rubles"] == 40.0
    listed = (await admin.get(ADMIN, params={"status": "completed"})).json()
    assert listed["total"] == 1 and listed["items"][0]["username"] == "member"


async def test_cancellation_gives_back_and_starts_no_cooldown(member, admin, enabled, earn, reload, cabinet):
    await earn(2, 5000)
    request_id = (await request(member, 5000)).json()["id"]
    async with cabinet(1) as other:
        assert (await other.post(f"{BASE}/{request_id}/cancel")).status_code == 404
    assert (await member.post(f"{BASE}/{request_id}/cancel")).json() == {"success": True}
    assert await balance_of(reload, 2) == 5000
    again = await member.post(f"{BASE}/{request_id}/cancel")
    assert again.status_code == 400 and again.json()["detail"] == "Можно отменить только заявку в ожидании"
    assert (await member.post(f"{BASE}/999999/cancel")).status_code == 404
    assert (await request(member, 5000)).status_code == 200  # a cancelled request starts no cooldown
    assert await balance_of(reload, 2) == 0


async def test_reserved_money_cannot_be_spent(member, client, enabled, earn, reload):
    await earn(2, 5000)
    assert (await request(member, 5000)).status_code == 200
    spend = await client.post("/users/2/balance", json={"amount_kopeks": -1})
    assert spend.status_code == 400
    assert await balance_of(reload, 2) == 0


async def test_refusals(member, admin, enabled, earn, reload):
    disabled = await admin.patch("/cabinet/admin/partners/settings", json={"withdrawal_enabled": False})
    assert disabled.json()["withdrawal_enabled"] is False
    refused = await request(member, 100)
    assert (
        refused.status_code == 400
        and refused.json()["detail"] == "Функция вывода реферального баланса отключена"
    )
    await admin.patch("/cabinet/admin/partners/settings", json={"withdrawal_enabled": True})
    few = await request(member, 100)
    assert few.status_code == 400 and few.json()["detail"] == "Минимальная сумма вывода: 1₽. Доступно: 0₽"
    await earn(2, 150)
    over = await request(member, 151)
    assert over.json()["detail"] == "Недостаточно реферального баланса. Доступно: 1.50₽"
    assert (await request(member, 0)).status_code == 422
    assert (
        await member.post(f"{BASE}/create", json={"amount_kopeks": 100, "payment_details": "x"})
    ).status_code == 422
    assert await balance_of(reload, 2) == 150


async def test_only_earnings_not_deposits_may_be_withdrawn(member, client, enabled, earn):
    await client.post("/users/2/balance", json={"amount_kopeks": 10000})
    await earn(2, 1000)
    over = await request(member, 1001)
    assert over.status_code == 400 and over.json()["detail"].endswith("Доступно: 10₽")
    assert (await request(member, 1000)).status_code == 200


async def test_two_requests_at_once_for_everything_one_succeeds(member, enabled, earn, reload, db, rows):
    await earn(2, 5000)
    answers = await asyncio.gather(request(member, 5000), request(member, 5000))
    assert sorted(a.status_code for a in answers) == [200, 400]
    assert await balance_of(reload, 2) == 0
    assert [r.status for r in await rows(WithdrawalRequest)] == ["pending"]


@pytest.mark.parametrize("status", ["pending", "approved"])
async def test_a_second_request_waits_for_the_first(member, admin, enabled, earn, status):
    await earn(2, 5000)
    first = (await request(member, 1000)).json()["id"]
    if status == "approved":
        await admin.post(f"{ADMIN}/{first}/approve", json={})
    second = await request(member, 1000)
    assert second.status_code == 400
    assert second.json()["detail"] == "У вас уже есть активная заявка на рассмотрении"


async def test_missing_requests(admin, enabled):
    assert (await admin.get(f"{ADMIN}/12345")).status_code == 404
    missing = await admin.post(f"{ADMIN}/12345/approve", json={})
    assert missing.status_code == 400 and missing.json()["detail"] == "Заявка не найдена"
    assert (await admin.get(ADMIN)).json() == {
        "items": [],
        "total": 0,
        "pending_count": 0,
        "pending_total_kopeks": 0,
    }


async def test_members_may_not_decide(member, enabled):
    assert (await member.get(ADMIN)).status_code == 403
    assert (await member.post(f"{ADMIN}/1/approve", json={})).status_code == 403


async def test_risk_score(member, admin, client, enabled, earn):
    await earn(2, 60000)  # through referee 3
    low = (await request(member, 100)).json()["id"]
    assert (await admin.get(f"{ADMIN}/{low}")).json()["risk_level"] == "low"
    await member.post(f"{BASE}/{low}/cancel")
    assert (await client.post("/users/2/deposit", json={"amount_kopeks": 1000})).status_code == 200
    assert (await client.post("/users/3/deposit", json={"amount_kopeks": 60000})).status_code == 200
    risky = (await request(member, 100)).json()["id"]
    detail = (await admin.get(f"{ADMIN}/{risky}")).json()
    assert (detail["risk_score"], detail["risk_level"]) == (70, "critical")  # 40 + 10 + 20
    analysis = detail["risk_analysis"]
    assert analysis["flags"] == ["deposits_without_purchases", "one_paying_referee"]
    assert analysis["suspicious_referees"] == [{"user_id": 3, "deposits": 1, "amount_kopeks": 60000}]
    assert analysis["recommendation"] == "reject"


async def test_cancel_and_reject_at_once_give_back_once(member, admin, enabled, earn, reload, rows):
    await earn(2, 5000)
    request_id = (await request(member, 5000)).json()["id"]
    answers = await asyncio.gather(
        member.post(f"{BASE}/{request_id}/cancel"), admin.post(f"{ADMIN}/{request_id}/reject", json={})
    )
    assert sorted(a.status_code for a in answers) == [200, 400]
    assert await balance_of(reload, 2) == 5000
    assert [t for t in await transactions_of(rows, 2) if t[0] == "withdrawal_release"] == [
        ("withdrawal_release", 5000)
    ]


async def test_many_earnings_in_a_week_raise_the_risk(member, admin, enabled, earn):
    for _ in range(21):
        await earn(2, 100)
    created = (await request(member, 100)).json()["id"]
    detail = (await admin.get(f"{ADMIN}/{created}")).json()
    assert detail["risk_score"] == 15 and "many_earnings_this_week" in detail["risk_analysis"]["flags"]


async def test_referrals_hears_the_totals(app, db, member, admin, enabled, earn):
    await earn(2, 5000)
    first = (await request(member, 1000)).json()["id"]
    await admin.post(f"{ADMIN}/{first}/approve", json={})
    await admin.post(f"{ADMIN}/{first}/complete")
    async with db.session() as session:
        hook = services(app).plugins.hook
        assert await hook.referral_withdrawal_totals(session=session, user_id=2) == (1000, 0)
        assert await hook.referral_partner_ids(session=session) == set()

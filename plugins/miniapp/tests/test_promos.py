"""Promo codes and offers through the mini app: the cabinet's rules, refusals as
``{code, message}`` objects; a refusal changes nothing."""

from __future__ import annotations

from subsvc_billing.api import Transaction
from subsvc_users.api import User

OFFERS = "/promo-offers"


async def test_a_balance_code_is_activated_once(miniapp, make_user, client, reload):
    made = await client.post(
        "/promo-codes", json={"code": "GIFT5", "type": "balance", "balance_bonus_kopeks": 500}
    )
    assert made.status_code == 201, made.text
    me = await make_user()
    first = await miniapp("/promo-codes/activate", me, code="gift5")
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["success"] is True and "5" in body["description"]
    assert body["promocode"] | {"valid_until": None} == {
        "code": "GIFT5",
        "type": "balance",
        "balance_bonus_kopeks": 500,
        "subscription_days": 0,
        "max_uses": made.json()["max_uses"],
        "current_uses": 1,
        "valid_until": None,
    }
    assert (await reload(User, me.id)).balance_kopeks == 500
    again = await miniapp("/promo-codes/activate", me, code="GIFT5")
    assert (again.status_code, again.json()["detail"]) == (
        400,
        {"code": "already_used_by_user", "message": "You have already used this promo code"},
    )
    assert (await reload(User, me.id)).balance_kopeks == 500


async def test_an_unknown_code_is_refused_and_nothing_changes(miniapp, make_user, rows):
    me = await make_user()
    answer = await miniapp("/promo-codes/activate", me, code="NOPE", subscription_id=5)
    assert (answer.status_code, answer.json()["detail"]) == (
        400,
        {"code": "not_found", "message": "Promo code not found"},
    )
    assert await rows(Transaction) == []


async def test_an_offer_is_claimed_once_and_anothers_is_not_found(miniapp, make_user, client):
    me, other = await make_user(), await make_user()
    made = await client.post(
        "/promo-offers",
        json={"user_id": me.id, "notification_type": "winback", "valid_hours": 24, "discount_percent": 15},
    )
    assert made.status_code == 201, made.text
    offer = made.json()["id"]
    theirs = await miniapp(f"{OFFERS}/{offer}/claim", other)
    assert (theirs.status_code, theirs.json()["detail"]["code"]) == (404, "not_found")
    claimed = await miniapp(f"{OFFERS}/{offer}/claim", me)
    assert (claimed.status_code, claimed.json()) == (200, {"success": True, "code": "claimed"})
    again = await miniapp(f"{OFFERS}/{offer}/claim", me)
    assert (again.status_code, again.json()["detail"]) == (
        400,
        {"code": "already_claimed", "message": "This offer has already been claimed"},
    )

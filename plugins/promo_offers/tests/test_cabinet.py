"""The cabinet: the user's offers, claiming (each effect once, refusals that change nothing),
the active discount, the promo group's discounts and the loyalty tiers."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest
from subsvc_billing.models import Transaction
from subsvc_promo_groups.models import PromoGroup
from subsvc_promo_offers.models import ActiveDiscount, DiscountOffer, PromoOfferLog
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.events import OutboxEvent

WEB = "/promo-offers"
CABINET = "/cabinet/promo"


async def _offer(client, user_id: int, **terms) -> dict:
    body = {"user_id": user_id, "notification_type": "winback", "valid_hours": 24, **terms}
    response = await client.post(WEB, json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _when(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


# --- the offers ----------------------------------------------------------------------------------


async def test_the_user_sees_their_unexpired_offers_newest_first(client, member, member_user, make_user, db):
    other = await make_user()
    old = await _offer(client, member_user.id, notification_type="a", discount_percent=5)
    new = await _offer(client, member_user.id, notification_type="b", effect_type="test_access")
    expired = await _offer(client, member_user.id, notification_type="c")
    await _offer(client, other.id)
    async with db.session() as session:
        row = await session.get(DiscountOffer, expired["id"])
        row.expires_at = utcnow() - timedelta(minutes=1)
        await session.commit()
    offers = (await member.get(f"{CABINET}/offers")).json()
    assert [offer["id"] for offer in offers] == [new["id"], old["id"]]
    first = offers[1]
    assert first["notification_type"] == "a" and first["discount_percent"] == 5
    assert (first["is_active"], first["is_claimed"], first["claimed_at"]) == (True, False, None)
    assert offers[0]["effect_type"] == "test_access"


async def test_a_claimed_offer_shows_as_claimed(client, member, member_user):
    offer = await _offer(client, member_user.id, discount_percent=10)
    assert (await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})).status_code == 200
    (listed,) = (await member.get(f"{CABINET}/offers")).json()
    assert (listed["is_active"], listed["is_claimed"]) == (False, True)
    assert listed["claimed_at"] is not None


# --- claiming a discount -------------------------------------------------------------------------


async def test_claiming_a_discount_activates_it_once_and_logs_it(client, member, member_user, rows):
    offer = await _offer(client, member_user.id, discount_percent=20, extra_data={"active_discount_hours": 5})
    before = utcnow()
    response = await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    assert response.status_code == 200
    claimed = response.json()
    assert claimed["success"] is True and claimed["discount_percent"] == 20
    expires = _when(claimed["expires_at"])
    assert before + timedelta(hours=5) <= expires <= utcnow() + timedelta(hours=5)
    assert claimed["message"] == f"Discount of 20% activated! Valid until {expires:%Y-%m-%d %H:%M}"

    active = (await member.get(f"{CABINET}/active-discount")).json()
    assert active == {
        "discount_percent": 20,
        "source": "winback",
        "expires_at": claimed["expires_at"],
        "is_active": True,
    }

    again = await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    assert (again.status_code, again.json()) == (400, {"detail": "This offer has already been claimed"})
    (log,) = await rows(PromoOfferLog)
    assert (log.action, log.user_id, log.offer_id, log.source, log.percent) == (
        "claimed",
        member_user.id,
        offer["id"],
        "winback",
        20,
    )
    assert log.details["context"] == "cabinet_claim" and log.details["discount_percent"] == 20
    events = [row.event_type for row in await rows(OutboxEvent)]
    assert events.count("promo_offer.claimed") == 1
    stored = (await client.get(f"{WEB}/{offer['id']}")).json()
    assert (stored["is_active"], stored["claimed_at"] is not None) == (False, True)


async def test_the_discount_lasts_as_the_template_says_or_has_no_end(client, member, member_user, admin):
    templates = (await admin.get("/cabinet/admin/promo-offers/templates")).json()["items"]
    template = next(item for item in templates if item["offer_type"] == "extend_discount")
    await admin.patch(
        f"/cabinet/admin/promo-offers/templates/{template['id']}", json={"active_discount_hours": 3}
    )
    by_template = await _offer(
        client, member_user.id, discount_percent=20, extra_data={"template_id": template["id"]}
    )
    claimed = (await member.post(f"{CABINET}/claim", json={"offer_id": by_template["id"]})).json()
    assert _when(claimed["expires_at"]) - utcnow() <= timedelta(hours=3)
    assert _when(claimed["expires_at"]) - utcnow() > timedelta(hours=2, minutes=59)

    endless = await _offer(client, member_user.id, notification_type="other", discount_percent=7)
    claimed = (await member.post(f"{CABINET}/claim", json={"offer_id": endless["id"]})).json()
    assert (claimed["discount_percent"], claimed["expires_at"]) == (7, None)
    assert claimed["message"] == "Discount of 7% activated!"
    active = (await member.get(f"{CABINET}/active-discount")).json()
    assert active == {"discount_percent": 7, "source": "other", "expires_at": None, "is_active": True}


async def test_concurrent_claims_of_one_offer_apply_it_once(client, member, member_user, rows):
    offer = await _offer(client, member_user.id, discount_percent=10, bonus_amount_kopeks=1_000)
    answers = await asyncio.gather(
        *(member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]}) for _ in range(8))
    )
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] + [400] * 7
    assert {answer.json()["detail"] for answer in answers if answer.status_code == 400} == {
        "This offer has already been claimed"
    }
    (user,) = await rows(User, id=member_user.id)
    assert user.balance_kopeks == 1_000
    assert len(await rows(Transaction, user_id=member_user.id)) == 1
    assert len(await rows(PromoOfferLog, action="claimed")) == 1


# --- other effects -------------------------------------------------------------------------------


async def test_a_balance_bonus_is_credited_once_through_billing(client, member, member_user, rows):
    offer = await _offer(client, member_user.id, effect_type="balance_bonus", bonus_amount_kopeks=2_550)
    claimed = (await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})).json()
    assert claimed["success"] is True
    assert (claimed["bonus_amount_kopeks"], claimed["balance_kopeks"], claimed["discount_percent"]) == (
        2_550,
        2_550,
        None,
    )
    assert claimed["message"] == "Bonus of 25.50 ₽ credited to your balance"
    (transaction,) = await rows(Transaction, user_id=member_user.id)
    assert (transaction.type, transaction.amount_kopeks, transaction.payment_method) == (
        "deposit",
        2_550,
        "promo_offer",
    )
    assert transaction.external_id == f"offer:{offer['id']}"
    assert transaction.balance_after_kopeks == 2_550
    active = (await member.get(f"{CABINET}/active-discount")).json()
    assert active["is_active"] is False  # no percent: no discount


async def test_an_offer_with_a_percent_and_a_bonus_gives_both(client, member, member_user, rows):
    offer = await _offer(client, member_user.id, discount_percent=15, bonus_amount_kopeks=100)
    claimed = (await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})).json()
    assert claimed["message"] == "Discount of 15% activated! Bonus of 1.00 ₽ credited to your balance."
    assert (claimed["discount_percent"], claimed["balance_kopeks"]) == (15, 100)


async def test_subscription_days_extend_the_current_subscription(
    client, member, member_user, make_subscription, rows
):
    subscription = await make_subscription(member_user, days=2)
    offer = await _offer(client, member_user.id, effect_type="subscription_days", extra_data={"days": 7})
    claimed = (await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})).json()
    assert claimed["message"] == "Subscription extended by 7 days"
    (row,) = await rows(Subscription, id=subscription.id)
    assert row.end_date - subscription.end_date == timedelta(days=7)
    assert _when(claimed["subscription_end_date"]) == row.end_date
    events = [(e.event_type, e.payload.get("change")) for e in await rows(OutboxEvent)]
    assert ("subscription.changed", "extended") in events


async def test_subscription_days_without_a_subscription_change_nothing(client, member, member_user, rows):
    offer = await _offer(client, member_user.id, effect_type="subscription_days", extra_data={"days": 7})
    response = await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Subscription required for this offer"},
    )
    (row,) = await rows(DiscountOffer, id=offer["id"])
    assert (row.claimed_at, row.is_active) == (None, True)  # still open: the claim was rolled back
    assert await rows(PromoOfferLog) == []


async def test_test_access_connects_the_squads_for_a_while(
    client, member, member_user, make_subscription, rows
):
    subscription = await make_subscription(member_user, connected_squads=["base"])
    offer = await _offer(
        client,
        member_user.id,
        effect_type="test_access",
        extra_data={"test_squad_uuids": ["base", "sq-new"], "test_duration_hours": 2},
    )
    claimed = (await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})).json()
    expires = _when(claimed["expires_at"])
    assert claimed["message"] == f"Test access activated until {expires:%Y-%m-%d %H:%M}"
    assert timedelta(hours=1, minutes=59) < expires - utcnow() <= timedelta(hours=2)
    (row,) = await rows(Subscription, id=subscription.id)
    assert row.connected_squads == ["base", "sq-new"]
    (log,) = await rows(PromoOfferLog)
    assert log.details["new_squads"] == ["sq-new"]


@pytest.mark.parametrize(
    ("subscription", "extra", "detail"),
    [
        (None, {"test_squad_uuids": ["sq"]}, "Active subscription required for this offer"),
        ({"status": "expired"}, {"test_squad_uuids": ["sq"]}, "Active subscription required for this offer"),
        ({}, {}, "Could not determine servers for test access"),
        ({"connected_squads": ["sq"]}, {"test_squad_uuids": ["sq"]}, "These servers are already connected"),
    ],
)
async def test_test_access_refusals(
    client, member, member_user, make_subscription, rows, subscription, extra, detail
):
    if subscription is not None:
        await make_subscription(member_user, **subscription)
    offer = await _offer(client, member_user.id, effect_type="test_access", extra_data=extra)
    response = await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    assert (response.status_code, response.json()) == (400, {"detail": detail})
    (row,) = await rows(DiscountOffer, id=offer["id"])
    assert row.claimed_at is None


async def test_an_offer_that_gives_nothing_is_invalid(client, member, member_user, rows):
    offer = await _offer(client, member_user.id)  # percent_discount of 0
    response = await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    assert (response.status_code, response.json()) == (400, {"detail": "Invalid offer"})
    (row,) = await rows(DiscountOffer, id=offer["id"])
    assert row.claimed_at is None and row.is_active


# --- refusals ------------------------------------------------------------------------------------


async def test_an_unknown_or_someone_elses_offer_is_404(client, member, make_user):
    other = await make_user()
    theirs = await _offer(client, other.id, discount_percent=10)
    for offer_id in (theirs["id"], 999, 2**31 - 1):
        response = await member.post(f"{CABINET}/claim", json={"offer_id": offer_id})
        assert (response.status_code, response.json()) == (404, {"detail": "Offer not found"})


async def test_an_expired_offer_is_refused_and_deactivated(client, member, member_user, db, rows, reload):
    offer = await _offer(client, member_user.id, discount_percent=10)
    async with db.session() as session:
        row = await session.get(DiscountOffer, offer["id"])
        row.expires_at = utcnow() - timedelta(seconds=1)
        await session.commit()
    response = await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    assert (response.status_code, response.json()) == (400, {"detail": "This offer has expired"})
    (row,) = await rows(DiscountOffer, id=offer["id"])
    assert (row.is_active, row.claimed_at) == (False, None)
    assert await reload(ActiveDiscount, member_user.id) is None


async def test_claim_input_is_validated(member):
    response = await member.post(f"{CABINET}/claim", json={"offer_id": "x"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "offer_id"]
    response = await member.post(f"{CABINET}/claim", json={"offer_id": 99999999999})  # beyond INTEGER
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["body", "offer_id"], "less_than_equal")
    ]


# --- the active discount -------------------------------------------------------------------------


async def test_without_a_discount_nothing_is_active(member):
    active = (await member.get(f"{CABINET}/active-discount")).json()
    assert active == {"discount_percent": 0, "source": None, "expires_at": None, "is_active": False}


async def test_an_expired_discount_reads_as_zero(client, member, member_user, db):
    offer = await _offer(client, member_user.id, discount_percent=30, extra_data={"active_discount_hours": 1})
    await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    async with db.session() as session:
        row = await session.get(ActiveDiscount, member_user.id)
        row.expires_at = utcnow() - timedelta(minutes=1)
        await session.commit()
    active = (await member.get(f"{CABINET}/active-discount")).json()
    assert (active["discount_percent"], active["is_active"], active["source"]) == (0, False, "winback")


async def test_clearing_the_discount_removes_it_and_logs_it(client, member, member_user, rows, reload):
    offer = await _offer(client, member_user.id, discount_percent=30)
    await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    response = await member.delete(f"{CABINET}/active-discount")
    assert (response.status_code, response.json()) == (200, {"message": "Active discount cleared"})
    assert (await member.get(f"{CABINET}/active-discount")).json()["is_active"] is False
    assert await reload(ActiveDiscount, member_user.id) is None
    (log,) = await rows(PromoOfferLog, action="disabled")
    assert (log.user_id, log.offer_id, log.percent, log.source) == (
        member_user.id,
        offer["id"],
        30,
        "winback",
    )
    again = await member.delete(f"{CABINET}/active-discount")
    assert again.json() == {"message": "Active discount cleared"}
    assert len(await rows(PromoOfferLog, action="disabled")) == 1


async def test_a_purchase_consumes_the_discount_once(client, member, member_user, db, rows):
    from subsvc_promo_offers.discounts import consume_active_discount

    offer = await _offer(client, member_user.id, discount_percent=12)
    await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    async with db.session() as session:
        assert await consume_active_discount(session, member_user.id, context="tariff_purchase") == 12
        assert await consume_active_discount(session, member_user.id, context="tariff_purchase") == 0
        await session.commit()
    (log,) = await rows(PromoOfferLog, action="consumed")
    assert (log.percent, log.details) == (12, {"context": "tariff_purchase"})
    assert (await member.get(f"{CABINET}/active-discount")).json()["is_active"] is False


# --- promo group and loyalty ---------------------------------------------------------------------


async def _group(db, **fields) -> PromoGroup:
    group = PromoGroup(**fields)
    async with db.session() as session:
        session.add(group)
        await session.commit()
        await session.refresh(group)
    return group


async def test_group_discounts_are_the_users_promo_group(member, member_user, db):
    group = await _group(
        db,
        name="Gold",
        server_discount_percent=10,
        traffic_discount_percent=5,
        device_discount_percent=3,
        period_discounts={"30": 5, "90": "10", "x": "bad"},
    )
    async with db.session() as session:
        user = await session.get(User, member_user.id)
        user.promo_group_id = group.id
        await session.commit()
    assert (await member.get(f"{CABINET}/group-discounts")).json() == {
        "group_name": "Gold",
        "server_discount_percent": 10,
        "traffic_discount_percent": 5,
        "device_discount_percent": 3,
        "period_discounts": {"30": 5, "90": 10},
    }


async def _spend(db, user_id: int, *amounts: int, type: str = "subscription_payment") -> None:
    async with db.session() as session:
        for amount in amounts:
            session.add(Transaction(user_id=user_id, type=type, amount_kopeks=amount, created_at=utcnow()))
        await session.commit()


async def test_loyalty_tiers_show_the_progress_by_spending(member, member_user, db):
    bronze = await _group(db, name="Bronze", auto_assign_total_spent_kopeks=10_000, server_discount_percent=5)
    silver = await _group(
        db, name="Silver", auto_assign_total_spent_kopeks=50_000, period_discounts={"30": 7}
    )
    await _group(db, name="Manual", auto_assign_total_spent_kopeks=None)
    await _spend(db, member_user.id, -15_000, 5_000)
    await _spend(db, member_user.id, 100_000, type="deposit")  # not spending
    tiers = (await member.get(f"{CABINET}/loyalty-tiers")).json()
    assert tiers["current_spent_rubles"] == 200.0
    assert (tiers["current_tier_name"], tiers["next_tier_name"], tiers["next_tier_threshold_rubles"]) == (
        "Bronze",
        "Silver",
        500.0,
    )
    assert tiers["progress_percent"] == pytest.approx(40.0)
    assert [(t["id"], t["is_achieved"], t["is_current"]) for t in tiers["tiers"]] == [
        (bronze.id, True, True),
        (silver.id, False, False),
    ]
    assert (
        tiers["tiers"][0]["threshold_rubles"] == 100.0 and tiers["tiers"][0]["server_discount_percent"] == 5
    )
    assert tiers["tiers"][1]["period_discounts"] == {"30": 7}


async def test_loyalty_tiers_all_reached_or_none_defined(member, member_user, db):
    assert (await member.get(f"{CABINET}/loyalty-tiers")).json() == {
        "tiers": [],
        "current_spent_rubles": 0.0,
        "current_tier_name": None,
        "next_tier_name": None,
        "next_tier_threshold_rubles": None,
        "progress_percent": 0.0,
    }
    await _group(db, name="Bronze", auto_assign_total_spent_kopeks=100)
    await _spend(db, member_user.id, 100)
    tiers = (await member.get(f"{CABINET}/loyalty-tiers")).json()
    assert (tiers["progress_percent"], tiers["current_tier_name"], tiers["next_tier_name"]) == (
        100.0,
        "Bronze",
        None,
    )


async def test_the_cabinet_needs_a_token(anon_client):
    for method, path in (
        ("GET", "/offers"),
        ("GET", "/active-discount"),
        ("DELETE", "/active-discount"),
        ("POST", "/claim"),
        ("GET", "/group-discounts"),
        ("GET", "/loyalty-tiers"),
    ):
        response = await anon_client.request(method, CABINET + path, json={"offer_id": 1})
        assert response.status_code == 401

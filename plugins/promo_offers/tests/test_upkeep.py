"""The upkeep job: test server access ends when its time is up, expired offers are deactivated,
and the job is declared to run periodically."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from subsvc_promo_offers import sender
from subsvc_promo_offers.models import DiscountOffer, ServerAccessGrant
from subsvc_subscriptions.models import Subscription

from subsvc.db import utcnow
from subsvc.events import OutboxEvent

WEB = "/promo-offers"
CABINET = "/cabinet/promo"


async def _claim_test_access(client, member, member_user, squads, notification_type="trial") -> dict:
    body = {
        "user_id": member_user.id,
        "notification_type": notification_type,
        "valid_hours": 1,
        "effect_type": "test_access",
        "extra_data": {"test_squad_uuids": squads},
    }
    offer = (await client.post(WEB, json=body)).json()
    response = await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})
    assert response.status_code == 200, response.text
    return offer


async def _expire_grants(db, **where) -> None:
    async with db.session() as session:
        statement = sa.update(ServerAccessGrant).values(expires_at=utcnow() - timedelta(seconds=1))
        for name, value in where.items():
            statement = statement.where(getattr(ServerAccessGrant, name) == value)
        await session.exec(statement)
        await session.commit()


async def test_test_access_ends_when_its_time_is_up(
    app, client, member, member_user, make_subscription, db, rows
):
    subscription = await make_subscription(member_user, connected_squads=["base"])
    await _claim_test_access(client, member, member_user, ["sq-a"])
    await sender.upkeep(app)  # not due yet
    assert (await rows(Subscription, id=subscription.id))[0].connected_squads == ["base", "sq-a"]

    await _expire_grants(db)
    await sender.upkeep(app)
    (row,) = await rows(Subscription, id=subscription.id)
    assert row.connected_squads == ["base"]
    (grant,) = await rows(ServerAccessGrant)
    assert grant.revoked_at is not None
    changes = [e.payload["change"] for e in await rows(OutboxEvent) if e.event_type == "subscription.changed"]
    assert changes == ["squads", "squads"]  # connected, then disconnected


async def test_a_squad_still_covered_by_another_grant_stays(
    app, client, member, member_user, make_subscription, db, rows
):
    subscription = await make_subscription(member_user)
    first = await _claim_test_access(client, member, member_user, ["sq-a"], "one")
    # the squad was disconnected by hand and granted again by a second offer
    async with db.session() as session:
        row = await session.get(Subscription, subscription.id)
        row.connected_squads = []
        await session.commit()
    await _claim_test_access(client, member, member_user, ["sq-a"], "two")
    await _expire_grants(db, offer_id=first["id"])
    await sender.upkeep(app)
    assert (await rows(Subscription, id=subscription.id))[0].connected_squads == ["sq-a"]


async def test_expired_offers_are_deactivated(app, client, make_user, db, rows):
    user = await make_user()
    body = {"user_id": user.id, "valid_hours": 1}
    old = (await client.post(WEB, json={**body, "notification_type": "old"})).json()
    fresh = (await client.post(WEB, json={**body, "notification_type": "fresh"})).json()
    async with db.session() as session:
        row = await session.get(DiscountOffer, old["id"])
        row.expires_at = utcnow() - timedelta(minutes=1)
        await session.commit()
    await sender.upkeep(app)
    states = {offer.id: offer.is_active for offer in await rows(DiscountOffer)}
    assert states == {old["id"]: False, fresh["id"]: True}
    # the type is free again: a new offer is made, the expired one stays as it was
    again = (await client.post(WEB, json={**body, "notification_type": "old"})).json()
    assert again["id"] != old["id"]


def test_the_jobs_are_declared(app):
    declared = app.state.jobs.declared
    assert set(declared) >= {"promo_offers.send_broadcast", "promo_offers.upkeep"}
    every = declared["promo_offers.upkeep"].every
    assert callable(every) and every(app) is None  # the tests set PROMO_OFFERS_UPKEEP_SECONDS=0


async def test_the_scheduled_upkeep_does_nothing_when_switched_off(app, client, make_user, db, rows):
    user = await make_user()
    offer = (
        await client.post(WEB, json={"user_id": user.id, "valid_hours": 1, "notification_type": "x"})
    ).json()
    async with db.session() as session:
        row = await session.get(DiscountOffer, offer["id"])
        row.expires_at = utcnow() - timedelta(minutes=1)
        await session.commit()
    await app.state.jobs.declared["promo_offers.upkeep"].run(app)
    assert (await rows(DiscountOffer))[0].is_active is True


async def test_the_upkeep_brings_back_missing_templates(app, admin, db):
    from subsvc_promo_offers.models import PromoOfferTemplate

    async with db.session() as session:
        await session.exec(
            sa.delete(PromoOfferTemplate).where(PromoOfferTemplate.offer_type == "test_access")
        )
        await session.commit()
    assert len((await admin.get("/cabinet/admin/promo-offers/templates")).json()["items"]) == 2
    await sender.upkeep(app)
    types = [
        item["offer_type"]
        for item in (await admin.get("/cabinet/admin/promo-offers/templates")).json()["items"]
    ]
    assert types == ["extend_discount", "purchase_discount", "test_access"]

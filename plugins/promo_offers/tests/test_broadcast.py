"""Broadcasting offers (Web API and Cabinet Admin): recipients by segment, user id, messenger id
or e-mail as the reference resolves them, one offer per user and notification type, and the
refusals. Notifications are in test_notifications.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from subsvc_promo_offers.models import DiscountOffer, OfferBroadcast

from subsvc.db import utcnow

ADMIN = "/cabinet/admin/promo-offers"
WEB = "/promo-offers"
TERMS = {"notification_type": "winback", "valid_hours": 24, "discount_percent": 10}


async def test_a_segment_gets_one_offer_each(
    admin, make_user, make_subscription, rows, member_user, admin_user
):
    paid, trial, blocked = await make_user(), await make_user(), await make_user(status="blocked")
    await make_subscription(paid)
    await make_subscription(trial, is_trial=True)
    await make_subscription(blocked)
    response = await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": " Active_Subscribers "})
    assert response.status_code == 201
    assert response.json() == {
        "created_offers": 1,
        "user_ids": [paid.id],
        "target": "active",
        "notifications_sent": 0,
        "notifications_failed": 0,
        "broadcast_id": None,
        "messenger_recipients": 0,
    }
    (offer,) = await rows(DiscountOffer)
    assert (offer.user_id, offer.notification_type, offer.discount_percent) == (paid.id, "winback", 10)
    assert await rows(OfferBroadcast) == []  # no notification asked for

    everyone = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all_users"})).json()
    active_users = [admin_user.id, member_user.id, paid.id, trial.id]  # not the blocked one
    assert (everyone["target"], sorted(everyone["user_ids"]), everyone["created_offers"]) == (
        "all",
        active_users,
        4,
    )
    assert len(await rows(DiscountOffer)) == 4  # the paid user's open offer was refreshed, not doubled


async def test_the_segment_and_the_named_user_are_joined_without_duplicates(
    admin, make_user, make_subscription
):
    paid, other = await make_user(), await make_user()
    await make_subscription(paid)
    body = {**TERMS, "target": "active", "user_id": other.id}
    answer = (await admin.post(f"{ADMIN}/broadcast", json=body)).json()
    assert (answer["user_ids"], answer["created_offers"]) == ([paid.id, other.id], 2)
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**body, "user_id": paid.id})).json()
    assert (answer["user_ids"], answer["created_offers"]) == ([paid.id], 1)


async def test_an_unknown_segment_selects_nobody(admin, member_user, rows):
    response = await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "nonsense"})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "No recipients: specify target or user"},
    )
    response = await admin.post(f"{ADMIN}/broadcast", json=TERMS)
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "No recipients: specify target or user"},
    )
    answer = (
        await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "nonsense", "user_id": 2})
    ).json()
    assert answer["user_ids"] == [member_user.id]
    assert len(await rows(DiscountOffer)) == 1


async def test_a_user_is_named_by_messenger_id_email_or_id(admin, make_user):
    by_chat = await make_user()
    email_only = await make_user(messenger_id=None, email="only@example.com", auth_type="email")
    answer = (
        await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "messenger_id": by_chat.messenger_id})
    ).json()
    assert answer["user_ids"] == [by_chat.id]
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "email": " Only@Example.com"})).json()
    assert answer["user_ids"] == [email_only.id]
    both = {
        **TERMS,
        "messenger_id": by_chat.messenger_id,
        "email": "nobody@example.com",
        "user_id": by_chat.id,
    }
    answer = (await admin.post(f"{ADMIN}/broadcast", json=both)).json()  # the e-mail is not looked at
    assert answer["user_ids"] == [by_chat.id]


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"messenger_id": 123}, 404, "User not found by messenger_id"),
        ({"messenger_id": "mine", "user_id": 1}, 400, "Provided user_id does not match messenger_id"),
        ({"email": "who@example.com"}, 404, "User not found by email"),
        ({"email": "mine", "user_id": 1}, 400, "Provided user_id does not match email"),
        ({"user_id": 4242}, 404, "User not found"),
        ({"notification_type": " "}, 400, "notification_type must not be empty"),
    ],
)
async def test_refusals_change_nothing(admin, make_user, rows, body, status, detail):
    user = await make_user(email="me@example.com")
    body = {k: (user.messenger_id if v == "mine" and k == "messenger_id" else v) for k, v in body.items()}
    body = {k: ("me@example.com" if v == "mine" else v) for k, v in body.items()}
    response = await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all", **body})
    assert (response.status_code, response.json()) == (status, {"detail": detail})
    assert await rows(DiscountOffer) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"valid_hours": 0}, "valid_hours"),
        ({"discount_percent": -1}, "discount_percent"),
        ({"bonus_amount_kopeks": -1}, "bonus_amount_kopeks"),
        ({"notification_type": ""}, "notification_type"),
        ({"effect_type": ""}, "effect_type"),
        ({"send_notification": "maybe"}, "send_notification"),
        ({"user_id": 99999999999}, "user_id"),
        ({"messenger_id": 2**63}, "messenger_id"),
    ],
)
async def test_bounds_of_the_broadcast_are_422_and_change_nothing(admin, rows, body, field):
    response = await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all", **body})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", field]
    assert await rows(DiscountOffer) == []


async def test_the_broadcast_defaults(admin, member_user, rows):
    body = {"notification_type": "n", "valid_hours": 2, "user_id": member_user.id}
    assert (await admin.post(f"{ADMIN}/broadcast", json=body)).status_code == 201
    (offer,) = await rows(DiscountOffer)
    assert (offer.discount_percent, offer.bonus_amount_kopeks, offer.effect_type, offer.extra_data) == (
        0,
        0,
        "percent_discount",
        {},
    )
    assert utcnow() + timedelta(hours=1, minutes=59) < offer.expires_at <= utcnow() + timedelta(hours=2)


# --- the Web API's broadcast ---------------------------------------------------------------------


async def test_the_web_broadcast_answers_the_reference_shape(client, make_user, make_subscription, rows):
    paid = await make_user()
    await make_subscription(paid)
    response = await client.post(WEB + "/broadcast", json={**TERMS, "target": "active"})
    assert response.status_code == 201
    assert response.json() == {"created_offers": 1, "user_ids": [paid.id], "target": "active"}


async def test_the_web_broadcast_refusals(client, make_user, make_subscription, rows):
    ann, bob = await make_user(), await make_user()
    bobs = await make_subscription(bob)
    cases = [
        ({}, 400, "Пустая аудитория: укажите target или конкретного пользователя"),
        ({"messenger_id": 5}, 404, "User not found"),
        (
            {"user_id": ann.id, "messenger_id": bob.messenger_id},
            400,
            "Provided user_id does not match messenger_id",
        ),
        (
            {"target": "all", "subscription_id": bobs.id},
            400,
            "subscription_id можно использовать только при отправке одному пользователю",
        ),
        ({"user_id": ann.id, "subscription_id": bobs.id}, 400, "Subscription does not belong to the user"),
        ({"user_id": ann.id, "subscription_id": 4242}, 404, "Subscription not found"),
    ]
    for body, status, detail in cases:
        response = await client.post(WEB + "/broadcast", json={**TERMS, **body})
        assert (response.status_code, response.json()) == (status, {"detail": detail}), body
    assert await rows(DiscountOffer) == []
    answer = (
        await client.post(WEB + "/broadcast", json={**TERMS, "user_id": bob.id, "subscription_id": bobs.id})
    ).json()
    assert answer["user_ids"] == [bob.id]
    (offer,) = await rows(DiscountOffer)
    assert offer.subscription_id == bobs.id

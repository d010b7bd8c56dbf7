"""Offers on the Web API (create, list, read) and the Cabinet Admin list: the upsert rule (one
open offer per user and notification type), the shapes, filters, pagination and refusals."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from subsvc_promo_offers.models import DiscountOffer

from subsvc.db import utcnow

WEB = "/promo-offers"
ADMIN = "/cabinet/admin/promo-offers"
OFFER_FIELDS = {
    "id",
    "user_id",
    "subscription_id",
    "notification_type",
    "discount_percent",
    "bonus_amount_kopeks",
    "expires_at",
    "claimed_at",
    "is_active",
    "effect_type",
    "extra_data",
    "created_at",
    "updated_at",
    "user",
    "subscription",
}


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def test_an_offer_is_made_for_a_user_with_its_user_and_subscription(
    client, make_user, make_subscription
):
    user = await make_user(username="ann", first_name="Ann", last_name="Lee", email="ann@example.com")
    subscription = await make_subscription(user, autopay_enabled=True)
    before = utcnow()
    response = await client.post(
        WEB,
        json={
            "user_id": user.id,
            "notification_type": " expiring ",
            "valid_hours": 24,
            "discount_percent": 15,
            "bonus_amount_kopeks": 500,
            "subscription_id": subscription.id,
            "extra_data": {"active_discount_hours": 6},
        },
    )
    assert response.status_code == 201
    offer = response.json()
    assert set(offer) == OFFER_FIELDS
    assert offer["notification_type"] == "expiring"  # trimmed
    assert (offer["discount_percent"], offer["bonus_amount_kopeks"]) == (15, 500)
    assert (offer["effect_type"], offer["is_active"], offer["claimed_at"]) == ("percent_discount", True, None)
    assert offer["extra_data"] == {"active_discount_hours": 6}
    expires = _when(offer["expires_at"])
    assert before + timedelta(hours=24) <= expires <= utcnow() + timedelta(hours=24)
    assert offer["user"] == {
        "id": user.id,
        "messenger_id": user.messenger_id,
        "email": "ann@example.com",
        "username": "ann",
        "first_name": "Ann",
        "last_name": "Lee",
        "full_name": "Ann Lee",
    }
    assert offer["subscription"]["id"] == subscription.id
    assert offer["subscription"]["autopay_enabled"] is True
    assert (await client.get(f"{WEB}/{offer['id']}")).json() == offer


async def test_a_user_is_named_by_messenger_id_too(client, make_user):
    user = await make_user()
    response = await client.post(
        WEB, json={"messenger_id": user.messenger_id, "notification_type": "x", "valid_hours": 1}
    )
    assert response.status_code == 201
    assert response.json()["user_id"] == user.id
    assert response.json()["subscription"] is None


async def test_offering_the_same_type_again_refreshes_the_open_offer(client, make_user, rows):
    user = await make_user()
    body = {"user_id": user.id, "notification_type": "winback", "valid_hours": 1, "discount_percent": 10}
    first = (await client.post(WEB, json=body)).json()
    second = (
        await client.post(
            WEB, json={**body, "valid_hours": 48, "discount_percent": 25, "effect_type": "balance_bonus"}
        )
    ).json()
    assert second["id"] == first["id"]
    assert (second["discount_percent"], second["effect_type"]) == (25, "balance_bonus")
    assert _when(second["expires_at"]) > _when(first["expires_at"]) + timedelta(hours=46)
    assert second["created_at"] == first["created_at"]
    other = (await client.post(WEB, json={**body, "notification_type": "other"})).json()
    assert other["id"] != first["id"]
    assert len(await rows(DiscountOffer, user_id=user.id)) == 2


async def test_a_claimed_offer_is_not_refreshed_a_new_one_is_made(client, make_user, db):
    user = await make_user()
    body = {"user_id": user.id, "notification_type": "winback", "valid_hours": 1}
    first = (await client.post(WEB, json=body)).json()
    async with db.session() as session:
        offer = await session.get(DiscountOffer, first["id"])
        offer.claimed_at, offer.is_active = utcnow(), False
        await session.commit()
    second = (await client.post(WEB, json=body)).json()
    assert second["id"] != first["id"]
    assert second["is_active"] is True


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({}, 400, "user_id or messenger_id is required"),
        ({"user_id": 999}, 404, "User not found"),
        ({"messenger_id": 123}, 404, "User not found"),
        ({"notification_type": "   "}, 400, "notification_type must not be empty"),
        ({"effect_type": " "}, 400, "effect_type must not be empty"),
    ],
)
async def test_refusals_of_create(client, make_user, rows, body, status, detail):
    await make_user()
    response = await client.post(WEB, json={"notification_type": "x", "valid_hours": 1, **body})
    assert (response.status_code, response.json()) == (status, {"detail": detail})
    assert await rows(DiscountOffer) == []


async def test_ids_that_disagree_are_400(client, make_user):
    ann, bob = await make_user(), await make_user()
    response = await client.post(
        WEB,
        json={
            "user_id": ann.id,
            "messenger_id": bob.messenger_id,
            "notification_type": "x",
            "valid_hours": 1,
        },
    )
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Provided user_id does not match messenger_id"},
    )


async def test_a_subscription_must_exist_and_be_the_users(client, make_user, make_subscription):
    ann, bob = await make_user(), await make_user()
    bobs = await make_subscription(bob)
    body = {"user_id": ann.id, "notification_type": "x", "valid_hours": 1}
    response = await client.post(WEB, json={**body, "subscription_id": 4242})
    assert (response.status_code, response.json()) == (404, {"detail": "Subscription not found"})
    response = await client.post(WEB, json={**body, "subscription_id": bobs.id})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Subscription does not belong to the user"},
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"valid_hours": 0}, "valid_hours"),
        ({"discount_percent": -1}, "discount_percent"),
        ({"discount_percent": 101}, "discount_percent"),
        ({"bonus_amount_kopeks": -1}, "bonus_amount_kopeks"),
        ({"notification_type": ""}, "notification_type"),
        ({"user_id": 0}, "user_id"),
        ({"user_id": 99999999999}, "user_id"),
        ({"messenger_id": 2**63}, "messenger_id"),
        ({"subscription_id": 2**31}, "subscription_id"),
    ],
)
async def test_out_of_bounds_input_is_422(client, body, field):
    response = await client.post(WEB, json={"notification_type": "x", "valid_hours": 1, "user_id": 1, **body})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", field]


async def test_an_unknown_offer_is_404_and_one_beyond_integer_422(client):
    for offer_id in ("12345", "2147483647"):
        response = await client.get(f"{WEB}/{offer_id}")
        assert (response.status_code, response.json()) == (404, {"detail": "Promo offer not found"})
    response = await client.get(f"{WEB}/99999999999")
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["path", "offer_id"], "less_than_equal")
    ]


async def _offers(client, make_user):
    ann, bob = await make_user(), await make_user()
    made = []
    for user, kind in ((ann, "a"), (bob, "a"), (ann, "b"), (bob, "c")):
        body = {"user_id": user.id, "notification_type": kind, "valid_hours": 1}
        made.append((await client.post(WEB, json=body)).json())
    return ann, bob, made


async def test_the_web_list_filters_and_pages_newest_first(client, make_user, db):
    ann, bob, made = await _offers(client, make_user)
    async with db.session() as session:
        inactive = await session.get(DiscountOffer, made[3]["id"])
        inactive.is_active = False
        await session.commit()
    page = (await client.get(WEB)).json()
    assert (page["total"], page["limit"], page["offset"]) == (4, 50, 0)
    assert [item["id"] for item in page["items"]] == [offer["id"] for offer in reversed(made)]

    async def ids(**params):
        return [item["id"] for item in (await client.get(WEB, params=params)).json()["items"]]

    assert await ids(user_id=ann.id) == [made[2]["id"], made[0]["id"]]
    assert await ids(messenger_id=bob.messenger_id) == [made[3]["id"], made[1]["id"]]
    assert await ids(notification_type="a") == [made[1]["id"], made[0]["id"]]
    assert await ids(is_active="false") == [made[3]["id"]]
    assert await ids(user_id=2**31 - 1) == []
    window = (await client.get(WEB, params={"limit": 2, "offset": 1})).json()
    assert ([item["id"] for item in window["items"]], window["total"]) == ([made[2]["id"], made[1]["id"]], 4)
    beyond = (await client.get(WEB, params={"offset": 10**6})).json()
    assert (beyond["items"], beyond["total"]) == ([], 4)
    for params, field in (({"user_id": 99999999999}, "user_id"), ({"offset": 10**30}, "offset")):
        response = await client.get(WEB, params=params)  # beyond INTEGER
        assert response.status_code == 422
        assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
            (["query", field], "less_than_equal")
        ]


async def test_the_web_list_refuses_unknown_or_disagreeing_messenger_ids(client, make_user):
    ann, bob, _ = await _offers(client, make_user)
    response = await client.get(WEB, params={"messenger_id": 5})
    assert (response.status_code, response.json()) == (404, {"detail": "User not found"})
    response = await client.get(WEB, params={"messenger_id": bob.messenger_id, "user_id": ann.id})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "messenger_id does not match the provided user_id"},
    )


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"offset": -1}, "offset"),
        ({"user_id": 0}, "user_id"),
    ],
)
async def test_list_bounds_are_422(client, admin, params, field):
    for http, base in ((client, WEB), (admin, ADMIN)):
        response = await http.get(base, params=params)
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"] == ["query", field]


async def test_the_admin_list_filters_by_user_and_activity(client, admin, make_user):
    ann, _, made = await _offers(client, make_user)
    page = (await admin.get(ADMIN, params={"user_id": ann.id, "limit": 1})).json()
    assert (page["total"], page["limit"], page["offset"]) == (2, 1, 0)
    (item,) = page["items"]
    assert item["id"] == made[2]["id"]
    assert item["user"]["id"] == ann.id and item["user"]["email"] is None
    assert (await admin.get(ADMIN, params={"is_active": "false"})).json()["total"] == 0


async def test_concurrent_offers_of_one_type_make_one_open_offer(client, admin, make_user, rows):
    import asyncio

    user = await make_user()
    body = {"user_id": user.id, "notification_type": "race", "valid_hours": 1}
    answers = await asyncio.gather(
        *(client.post(WEB, json={**body, "discount_percent": n}) for n in range(6)),
        *(admin.post(f"{ADMIN}/broadcast", json={**body, "discount_percent": 50 + n}) for n in range(6)),
    )
    assert {answer.status_code for answer in answers} == {201}
    (offer,) = await rows(DiscountOffer, user_id=user.id)
    assert offer.is_active and offer.claimed_at is None

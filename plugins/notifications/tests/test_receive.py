"""`POST /notifications/subscriptions`: the stored record, the user's name, every bound, the 404s,
and that a refused event stores nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete
from subsvc_notifications.models import SubscriptionEvent
from subsvc_subscriptions.models import Subscription

from subsvc.events import OutboxEvent

URL = "/notifications/subscriptions"
EVENT_TYPES = [
    "activation",
    "purchase",
    "renewal",
    "balance_topup",
    "promocode_activation",
    "referral_link_visit",
    "promo_group_change",
]


def parse(value: str) -> datetime:
    return datetime.fromisoformat(value)


async def test_a_full_event_is_stored_and_answered_with_201(
    client, rows, make_user, make_subscription, make_transaction
):
    user = await make_user(first_name="Anna", last_name="Petrova", username="anna")
    subscription_id = await make_subscription(user["id"])
    transaction_id = await make_transaction(user["id"])
    occurred = "2026-03-01T10:30:00+03:00"
    before = datetime.now(UTC)
    response = await client.post(
        URL,
        json={
            "event_type": "purchase",
            "user_id": user["id"],
            "subscription_id": subscription_id,
            "transaction_id": transaction_id,
            "amount_kopeks": 19_900,
            "currency": "RUB",
            "message": "  30 days bought  ",
            "occurred_at": occurred,
            "extra": {"period_days": 30, "promo": None},
        },
    )
    assert response.status_code == 201, response.text
    body = response.json()
    (stored,) = await rows(SubscriptionEvent)
    assert body == {
        "id": stored.id,
        "event_type": "purchase",
        "user_id": user["id"],
        "user_full_name": "Anna Petrova",
        "user_username": "anna",
        "user_messenger_id": user["messenger_id"],
        "subscription_id": subscription_id,
        "transaction_id": transaction_id,
        "amount_kopeks": 19_900,
        "currency": "RUB",
        "message": "30 days bought",
        "occurred_at": body["occurred_at"],
        "created_at": body["created_at"],
        "extra": {"period_days": 30, "promo": None},
    }
    assert parse(body["occurred_at"]) == parse(occurred)
    assert parse(body["occurred_at"]).utcoffset() == timedelta(0)
    assert before <= parse(body["created_at"]) <= datetime.now(UTC)
    assert (stored.event_type, stored.user_id, stored.amount_kopeks, stored.message) == (
        "purchase",
        user["id"],
        19_900,
        "30 days bought",
    )
    assert stored.occurred_at == parse(occurred)


@pytest.mark.parametrize("event_type", EVENT_TYPES)
async def test_each_of_the_seven_types_is_accepted(client, make_user, event_type):
    user = await make_user()
    response = await client.post(URL, json={"event_type": event_type, "user_id": user["id"]})
    assert response.status_code == 201, response.text
    assert response.json()["event_type"] == event_type


async def test_a_minimal_event_takes_the_defaults(client, rows, make_user):
    user = await make_user(username="only_username")
    before = datetime.now(UTC)
    response = await client.post(URL, json={"event_type": "activation", "user_id": user["id"]})
    assert response.status_code == 201
    body = response.json()
    for field in ("subscription_id", "transaction_id", "amount_kopeks", "currency", "message"):
        assert body[field] is None
    assert body["extra"] == {}
    assert before <= parse(body["occurred_at"]) <= datetime.now(UTC)  # default: now
    (stored,) = await rows(SubscriptionEvent)
    assert stored.extra is None  # an empty extra is stored as null


async def test_a_time_without_an_offset_is_utc_and_a_blank_message_is_null(client, make_user, rows):
    user = await make_user()
    response = await client.post(
        URL,
        json={
            "event_type": "renewal",
            "user_id": user["id"],
            "occurred_at": "2026-01-02T03:04:05",
            "message": "   ",
        },
    )
    assert response.status_code == 201
    assert parse(response.json()["occurred_at"]) == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert response.json()["message"] is None
    (stored,) = await rows(SubscriptionEvent)
    assert stored.message is None


async def test_a_promocode_activation_always_shows_the_balance_keys(client, make_user):
    user = await make_user()
    bare = await client.post(URL, json={"event_type": "promocode_activation", "user_id": user["id"]})
    assert bare.json()["extra"] == {"balance_before_kopeks": None, "balance_after_kopeks": None}
    given = await client.post(
        URL,
        json={
            "event_type": "promocode_activation",
            "user_id": user["id"],
            "extra": {"code": "SPRING", "balance_before_kopeks": 100},
        },
    )
    assert given.json()["extra"] == {
        "code": "SPRING",
        "balance_before_kopeks": 100,
        "balance_after_kopeks": None,
    }
    other = await client.post(URL, json={"event_type": "purchase", "user_id": user["id"], "extra": {"a": 1}})
    assert other.json()["extra"] == {"a": 1}  # only promo-code activations get the keys
    listed = (await client.get(URL, params={"event_type": "promocode_activation"})).json()["items"]
    assert [item["extra"] for item in listed] == [given.json()["extra"], bare.json()["extra"]]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"first_name": "Ivan", "last_name": "Ivanov", "username": "ivan"}, "Ivan Ivanov"),
        ({"first_name": "Ivan", "username": "ivan"}, "Ivan"),
        ({"last_name": "Ivanov"}, "Ivanov"),
        ({"username": "ivan"}, "ivan"),
        ({"messenger_id": 123_456_789}, "ID123456789"),
        ({"messenger_id": None, "email": "ivan.petrov@example.com"}, "ivan.petrov"),
        ({"messenger_id": None}, "User{id}"),
    ],
)
async def test_the_user_full_name_follows_the_reference_rule(client, make_user, fields, expected):
    user = await make_user(**fields)
    response = await client.post(URL, json={"event_type": "activation", "user_id": user["id"]})
    assert response.status_code == 201
    assert response.json()["user_full_name"] == expected.format(id=user["id"])
    assert response.json()["user_messenger_id"] == user["messenger_id"]


async def test_user_id_is_the_internal_id_not_the_messenger_id(client, make_user):
    user = await make_user(messenger_id=555_000_111)
    response = await client.post(URL, json={"event_type": "activation", "user_id": 555_000_111})
    assert response.status_code == 404
    assert response.json() == {"detail": "User not found"}
    assert (
        await client.post(URL, json={"event_type": "activation", "user_id": user["id"]})
    ).status_code == 201


@pytest.mark.parametrize(
    ("field", "detail"),
    [
        ("user_id", "User not found"),
        ("subscription_id", "Subscription not found"),
        ("transaction_id", "Transaction not found"),
    ],
)
async def test_unknown_references_are_404_and_store_nothing(
    client, rows, make_user, make_subscription, make_transaction, field, detail
):
    user = await make_user()
    body = {
        "event_type": "purchase",
        "user_id": user["id"],
        "subscription_id": await make_subscription(user["id"]),
        "transaction_id": await make_transaction(user["id"]),
        field: 999_999,
    }
    outbox_before = len(await rows(OutboxEvent))
    response = await client.post(URL, json=body)
    assert response.status_code == 404
    assert response.json() == {"detail": detail}
    assert await rows(SubscriptionEvent) == []
    assert len(await rows(OutboxEvent)) == outbox_before  # no event either


async def test_the_user_is_checked_before_the_subscription_and_the_transaction(client):
    body = {
        "event_type": "purchase",
        "user_id": 999_999,
        "subscription_id": 999_999,
        "transaction_id": 999_999,
    }
    assert (await client.post(URL, json=body)).json() == {"detail": "User not found"}


async def test_another_users_subscription_and_transaction_are_accepted(
    client, make_user, make_subscription, make_transaction
):
    """As in the reference, the event's references are not checked against its user."""
    owner, other = await make_user(), await make_user()
    body = {
        "event_type": "renewal",
        "user_id": other["id"],
        "subscription_id": await make_subscription(owner["id"]),
        "transaction_id": await make_transaction(owner["id"]),
    }
    assert (await client.post(URL, json=body)).status_code == 201


@pytest.mark.parametrize(
    ("change", "location", "error_type"),
    [
        ({"event_type": "cancellation"}, ["body", "event_type"], "literal_error"),
        ({"event_type": None}, ["body", "event_type"], "literal_error"),
        ({"user_id": 0}, ["body", "user_id"], "greater_than_equal"),
        ({"user_id": "abc"}, ["body", "user_id"], "int_parsing"),
        ({"user_id": 2**31}, ["body", "user_id"], "less_than_equal"),
        ({"user_id": 2**62}, ["body", "user_id"], "less_than_equal"),
        ({"subscription_id": 0}, ["body", "subscription_id"], "greater_than_equal"),
        ({"subscription_id": 2**31}, ["body", "subscription_id"], "less_than_equal"),
        ({"transaction_id": -1}, ["body", "transaction_id"], "greater_than_equal"),
        ({"transaction_id": 2**62}, ["body", "transaction_id"], "less_than_equal"),
        ({"amount_kopeks": -1}, ["body", "amount_kopeks"], "greater_than_equal"),
        ({"amount_kopeks": 2**63}, ["body", "amount_kopeks"], "less_than_equal"),
        ({"currency": ""}, ["body", "currency"], "string_too_short"),
        ({"currency": "X" * 17}, ["body", "currency"], "string_too_long"),
        ({"message": "m" * 2001}, ["body", "message"], "string_too_long"),
        ({"occurred_at": "yesterday"}, ["body", "occurred_at"], "datetime_from_date_parsing"),
        ({"extra": [1, 2]}, ["body", "extra"], "dict_type"),
    ],
)
async def test_out_of_bounds_fields_are_422(client, rows, make_user, change, location, error_type):
    user = await make_user()
    response = await client.post(URL, json={"event_type": "activation", "user_id": user["id"], **change})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert (error["loc"], error["type"]) == (location, error_type)
    assert await rows(SubscriptionEvent) == []


async def test_the_bounds_themselves_are_accepted(client, make_user):
    user = await make_user()
    body = {
        "event_type": "balance_topup",
        "user_id": user["id"],
        "amount_kopeks": 0,
        "currency": "X" * 16,
        "message": "m" * 2000,
    }
    response = await client.post(URL, json=body)
    assert response.status_code == 201
    assert (response.json()["currency"], len(response.json()["message"])) == ("X" * 16, 2000)


async def test_required_fields_and_credentials(client, anon_client):
    missing = await client.post(URL, json={})
    assert missing.status_code == 422
    assert sorted(tuple(e["loc"]) for e in missing.json()["detail"]) == [
        ("body", "event_type"),
        ("body", "user_id"),
    ]
    assert (await client.post(URL)).status_code == 422
    assert (await anon_client.post(URL, json={"event_type": "activation", "user_id": 1})).status_code == 401


async def test_deleting_the_subscription_keeps_the_event(client, db, rows, make_user, make_subscription):
    user = await make_user()
    subscription_id = await make_subscription(user["id"])
    created = await client.post(
        URL, json={"event_type": "activation", "user_id": user["id"], "subscription_id": subscription_id}
    )
    assert created.status_code == 201
    async with db.session() as session:
        await session.exec(delete(Subscription).where(Subscription.id == subscription_id))
        await session.commit()
    (item,) = (await client.get(URL)).json()["items"]
    assert (item["id"], item["subscription_id"]) == (created.json()["id"], None)

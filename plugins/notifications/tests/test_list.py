"""`GET /notifications/subscriptions`: order, filters (repeatable `event_type`, `user_id`, the
`occurred_at` range), the envelope and its bounds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

URL = "/notifications/subscriptions"
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def logged(client, make_user):
    """Two users and six events an hour apart (the newest last), posted out of order."""
    ann = await make_user(first_name="Ann")
    bob = await make_user(username="bob")
    plan = [
        (3, "renewal", ann),
        (0, "activation", ann),
        (5, "promo_group_change", bob),
        (1, "purchase", bob),
        (4, "balance_topup", ann),
        (2, "purchase", ann),
    ]
    ids: dict[int, int] = {}
    for hour, event_type, user in plan:
        response = await client.post(
            URL,
            json={
                "event_type": event_type,
                "user_id": user["id"],
                "occurred_at": (START + timedelta(hours=hour)).isoformat(),
            },
        )
        assert response.status_code == 201, response.text
        ids[hour] = response.json()["id"]
    return {"ann": ann, "bob": bob, "ids": ids}


def hours(body: dict, logged: dict) -> list[int]:
    by_id = {event_id: hour for hour, event_id in logged["ids"].items()}
    return [by_id[item["id"]] for item in body["items"]]


async def test_the_log_is_newest_first_in_the_envelope(client, logged):
    response = await client.get(URL)
    assert response.status_code == 200
    body = response.json()
    assert (body["total"], body["limit"], body["offset"]) == (6, 50, 0)
    assert hours(body, logged) == [5, 4, 3, 2, 1, 0]
    newest = body["items"][0]
    assert (newest["event_type"], newest["user_id"], newest["user_full_name"]) == (
        "promo_group_change",
        logged["bob"]["id"],
        "bob",
    )
    assert newest["user_username"] == "bob"
    assert newest["user_messenger_id"] == logged["bob"]["messenger_id"]


async def test_pages_keep_the_total(client, logged):
    first = (await client.get(URL, params={"limit": 4})).json()
    second = (await client.get(URL, params={"limit": 4, "offset": 4})).json()
    beyond = (await client.get(URL, params={"limit": 4, "offset": 40})).json()
    assert (first["total"], second["total"], beyond["total"]) == (6, 6, 6)
    assert hours(first, logged) + hours(second, logged) == [5, 4, 3, 2, 1, 0]
    assert beyond["items"] == []
    far = await client.get(URL, params={"offset": 10**6})
    assert far.status_code == 200
    assert (far.json()["items"], far.json()["total"]) == ([], 6)
    huge = await client.get(URL, params={"offset": 2**70})  # beyond INTEGER
    assert huge.status_code == 422
    assert [(e["loc"], e["type"]) for e in huge.json()["detail"]] == [
        (["query", "offset"], "less_than_equal")
    ]


async def test_event_type_is_repeatable_and_any_of(client, logged):
    one = (await client.get(URL, params={"event_type": "purchase"})).json()
    assert (one["total"], hours(one, logged)) == (2, [2, 1])
    several = (await client.get(URL, params=[("event_type", "purchase"), ("event_type", "renewal")])).json()
    assert (several["total"], hours(several, logged)) == (3, [3, 2, 1])
    unknown = (await client.get(URL, params={"event_type": "cancellation"})).json()
    assert (unknown["total"], unknown["items"]) == (0, [])


async def test_user_id_filters_by_internal_id(client, logged):
    ann = (await client.get(URL, params={"user_id": logged["ann"]["id"]})).json()
    assert (ann["total"], hours(ann, logged)) == (4, [4, 3, 2, 0])
    by_messenger_id = (await client.get(URL, params={"user_id": logged["ann"]["messenger_id"]})).json()
    assert by_messenger_id["total"] == 0
    for nobody in (999_999, -5):
        assert (await client.get(URL, params={"user_id": nobody})).json()["total"] == 0
    beyond = await client.get(URL, params={"user_id": 2**40})  # no internal id is beyond INTEGER
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["query", "user_id"], "less_than_equal")
    ]


async def test_filters_combine(client, logged):
    params = [("user_id", logged["ann"]["id"]), ("event_type", "purchase"), ("event_type", "activation")]
    body = (await client.get(URL, params=params)).json()
    assert (body["total"], hours(body, logged)) == (2, [2, 0])


async def test_the_date_range_bounds_occurred_at_inclusively(client, logged):
    params = {
        "date_from": (START + timedelta(hours=1)).isoformat(),
        "date_to": (START + timedelta(hours=3)).isoformat(),
    }
    body = (await client.get(URL, params=params)).json()
    assert (body["total"], hours(body, logged)) == (3, [3, 2, 1])
    since = (await client.get(URL, params={"date_from": (START + timedelta(hours=4)).isoformat()})).json()
    assert hours(since, logged) == [5, 4]
    until = (await client.get(URL, params={"date_to": START.isoformat()})).json()
    assert hours(until, logged) == [0]
    naive = (await client.get(URL, params={"date_from": "2026-05-01T16:00:00"})).json()  # UTC
    assert hours(naive, logged) == [5, 4]
    shifted = (await client.get(URL, params={"date_from": "2026-05-01T19:00:00+03:00"})).json()
    assert hours(shifted, logged) == [5, 4]
    empty = await client.get(URL, params={"date_from": "2026-06-01T00:00:00Z", "date_to": START.isoformat()})
    assert empty.json()["total"] == 0


@pytest.mark.parametrize(
    ("params", "location"),
    [
        ({"limit": 0}, ["query", "limit"]),
        ({"limit": 201}, ["query", "limit"]),
        ({"offset": -1}, ["query", "offset"]),
        ({"user_id": "x"}, ["query", "user_id"]),
        ({"date_from": "soon"}, ["query", "date_from"]),
        ({"date_to": "later"}, ["query", "date_to"]),
    ],
)
async def test_bad_query_values_are_422(client, params, location):
    response = await client.get(URL, params=params)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [location]


async def test_limits_at_the_bounds_and_credentials(client, anon_client, logged):
    assert len((await client.get(URL, params={"limit": 1})).json()["items"]) == 1
    assert (await client.get(URL, params={"limit": 200})).json()["limit"] == 200
    assert (await anon_client.get(URL)).status_code == 401


async def test_an_empty_log(client):
    assert (await client.get(URL)).json() == {"items": [], "total": 0, "limit": 50, "offset": 0}

"""A stored subscription event is published once, after the commit, and reaches every admin
`/ws` socket; a refused one publishes nothing. The events the event's user, subscription and
transaction raised (users, subscriptions, billing) arrive there too."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

import jsonschema
from websockets.asyncio.client import ClientConnection, connect

from subsvc.events import OutboxEvent

URL = "/notifications/subscriptions"


async def receive(ws: ClientConnection, seconds: float = 5.0) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), seconds))


async def until(ws: ClientConnection, event_type: str) -> list[dict[str, Any]]:
    """The messages up to and including the first of ``event_type``."""
    seen = [await receive(ws)]
    while seen[-1]["type"] != event_type:
        seen.append(await receive(ws))
    return seen


async def nothing_more(ws: ClientConnection) -> None:
    """Nothing else was queued for this socket: the next message answers a ping."""
    await ws.send(json.dumps({"type": "ping"}))
    assert await receive(ws) == {"type": "pong"}


async def test_a_stored_event_reaches_every_admin_socket(
    base, api_key, client, rows, make_user, make_subscription, make_transaction
):
    async with connect(f"{base}/ws?token={api_key}") as one, connect(f"{base}/ws?token={api_key}") as two:
        for ws in (one, two):
            assert (await receive(ws))["type"] == "connection"
        user = await make_user(first_name="Vera")
        subscription_id = await make_subscription(user["id"])
        transaction_id = await make_transaction(user["id"])
        response = await client.post(
            URL,
            json={
                "event_type": "purchase",
                "user_id": user["id"],
                "subscription_id": subscription_id,
                "transaction_id": transaction_id,
                "amount_kopeks": 1_000,
                "currency": "RUB",
                "extra": {"source": "bot"},
            },
        )
        assert response.status_code == 201
        record = response.json()
        for ws in (one, two):
            seen = await until(ws, "subscription_event.recorded")
            by_type = {message["type"]: message for message in seen}
            # the prerequisites' own events came first, in commit order
            assert {
                "user.created",
                "subscription.changed",
                "payment.completed",
                "transaction.created",
            } <= set(by_type)
            assert by_type["user.created"]["payload"]["user_id"] == user["id"]
            assert by_type["payment.completed"]["payload"]["transaction_id"] == transaction_id
            message = by_type["subscription_event.recorded"]
            assert message["payload"] == record
            for event in seen:  # each payload is what the catalogue says its type carries
                schema = (await client.get(f"/events/types/{event['type']}")).json()["payload_schema"]
                jsonschema.validate(event["payload"], schema)
            assert datetime.fromisoformat(message["timestamp"]).tzinfo is not None
            await nothing_more(ws)

    outbox = [(row.event_type, row.payload) for row in await rows(OutboxEvent)]
    assert outbox[-1] == ("subscription_event.recorded", record)
    assert [event_type for event_type, _ in outbox].count("subscription_event.recorded") == 1


async def test_a_refused_event_publishes_nothing(base, api_key, client, make_user):
    user = await make_user()
    async with connect(f"{base}/ws?token={api_key}") as ws:
        assert (await receive(ws))["type"] == "connection"
        refused = await client.post(
            URL, json={"event_type": "renewal", "user_id": user["id"], "subscription_id": 9}
        )
        assert refused.status_code == 404
        invalid = await client.post(
            URL, json={"event_type": "renewal", "user_id": user["id"], "currency": ""}
        )
        assert invalid.status_code == 422
        fence = await client.post(URL, json={"event_type": "renewal", "user_id": user["id"]})
        assert fence.status_code == 201
        # events are dispatched in the order they were written: had a refused request
        # published anything, it would arrive before the fence's event
        seen = await until(ws, "subscription_event.recorded")
        assert {message["type"] for message in seen[:-1]} <= {"user.created"}
        assert seen[-1]["payload"]["id"] == fence.json()["id"]
        await nothing_more(ws)

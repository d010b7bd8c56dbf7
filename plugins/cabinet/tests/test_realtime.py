"""Balance and subscription changes made through the Web API reach the user's `/cabinet/ws`
sockets in the reference's shapes (and every admin `/ws` socket as events), on this instance
and, through Redis, on another."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

import httpx2
import pytest
from websockets.asyncio.client import ClientConnection, connect

from subsvc.app import create_app


async def receive(ws: ClientConnection, seconds: float = 5.0) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), seconds))


async def receive_event(ws: ClientConnection) -> dict[str, Any]:
    """The next event on an admin socket, past the `user.created` of the test's own users
    (they may be dispatched after the socket connected)."""
    while (message := await receive(ws))["type"] == "user.created":
        pass
    return message


async def nothing_more(ws: ClientConnection) -> None:
    """Nothing else was queued for this socket: the next message answers a ping."""
    await ws.send(json.dumps({"type": "ping"}))
    assert await receive(ws) == {"type": "pong"}


@pytest.fixture
async def base(app, serve):
    async with serve(app) as url:
        yield url


async def test_balance_changes_reach_the_users_socket_and_the_admin_socket(
    app, base, api_key, client, make_user
):
    user, other = await make_user(), await make_user()
    jwt = app.state.jwt
    async with (
        connect(f"{base}/cabinet/ws?token={jwt.access_token(user['id'])}") as mine,
        connect(f"{base}/cabinet/ws?token={jwt.access_token(other['id'])}") as theirs,
        connect(f"{base}/ws?token={api_key}") as admin,
    ):
        assert await receive(mine) == {"type": "connected", "user_id": user["id"], "is_admin": False}
        assert (await receive(theirs))["type"] == "connected"
        assert (await receive(admin))["type"] == "connection"

        credit = await client.post(
            f"/users/{user['id']}/balance", json={"amount_kopeks": 1_550, "description": "gift"}
        )
        assert credit.status_code == 200
        assert await receive(mine) == {
            "type": "balance.topup",
            "amount_kopeks": 1_550,
            "amount_rubles": 15.5,
            "new_balance_kopeks": 1_550,
            "new_balance_rubles": 15.5,
            "description": "gift",
        }
        events = [await receive_event(admin), await receive_event(admin)]
        assert sorted(e["type"] for e in events) == ["payment.completed", "transaction.created"]
        for event in events:
            assert event["payload"]["user_id"] == user["id"]
            assert (event["payload"]["type"], event["payload"]["amount_kopeks"]) == ("deposit", 1_550)
            assert datetime.fromisoformat(event["timestamp"]).tzinfo is not None

        debit = await client.post(
            f"/users/{user['id']}/balance", json={"amount_kopeks": -50, "description": "fee"}
        )
        assert debit.status_code == 200
        assert await receive(mine) == {
            "type": "balance.change",
            "amount_kopeks": -50,
            "amount_rubles": -0.5,
            "new_balance_kopeks": 1_500,
            "new_balance_rubles": 15.0,
            "description": "fee",
        }
        assert (await receive_event(admin))["type"] == "transaction.created"

        refused = await client.post(f"/users/{user['id']}/balance", json={"amount_kopeks": -10_000})
        assert refused.status_code == 400  # nothing committed: nothing sent
        quiet = await client.post(
            f"/users/{user['id']}/balance", json={"amount_kopeks": 5, "create_transaction": False}
        )
        assert quiet.status_code == 200  # no transaction: no event, no message
        for ws in (mine, theirs, admin):
            await nothing_more(ws)


async def test_subscription_changes_reach_the_users_socket(app, base, client, make_user):
    user = await make_user()
    async with connect(f"{base}/cabinet/ws?token={app.state.jwt.access_token(user['id'])}") as ws:
        assert (await receive(ws))["type"] == "connected"
        created = await client.post(
            f"/users/{user['id']}/subscription", json={"period_days": 30, "traffic_limit_gb": 50}
        )
        subscription = created.json()["subscription"]
        sid = subscription["id"]
        message = await receive(ws)
        assert message == {
            "type": "subscription.activated",
            "subscription_id": sid,
            "expires_at": message["expires_at"],
            "tariff_name": None,
        }
        assert datetime.fromisoformat(message["expires_at"]) == datetime.fromisoformat(
            subscription["end_date"]
        )

        extended = (await client.post(f"/subscriptions/{sid}/extend", json={"days": 5})).json()
        message = await receive(ws)
        assert message == {
            "type": "subscription.renewed",
            "subscription_id": sid,
            "new_expires_at": message["new_expires_at"],
            "amount_kopeks": 0,
            "amount_rubles": 0.0,
        }
        assert datetime.fromisoformat(message["new_expires_at"]) == datetime.fromisoformat(
            extended["end_date"]
        )

        await client.post(f"/subscriptions/{sid}/traffic", json={"gb": 10})
        assert await receive(ws) == {
            "type": "subscription.traffic_purchased",
            "traffic_gb_added": None,
            "new_traffic_limit_gb": 60,
            "amount_kopeks": 0,
            "amount_rubles": 0.0,
        }
        await client.post(f"/subscriptions/{sid}/devices", json={"devices": 2})
        assert await receive(ws) == {
            "type": "subscription.devices_purchased",
            "devices_added": None,
            "new_device_limit": 3,
            "amount_kopeks": 0,
            "amount_rubles": 0.0,
        }
        await client.delete(f"/subscriptions/{sid}")
        message = await receive(ws)
        assert {k: message[k] for k in ("type", "subscription_id", "change", "status")} == {
            "type": "subscription.updated",
            "subscription_id": sid,
            "change": "disabled",
            "status": "disabled",
        }
        await nothing_more(ws)


async def test_a_balance_change_on_one_instance_reaches_a_socket_on_another(
    redis_url, subsvc_settings, subsvc_plugins, app, serve, api_key, make_user
):
    user = await make_user()
    await app.state.events.stop()  # only the two instances on Redis dispatch events here
    settings = subsvc_settings.model_copy(update={"REDIS_URL": redis_url})
    one, two = create_app(settings, plugins=subsvc_plugins), create_app(settings, plugins=subsvc_plugins)
    token = two.state.jwt.access_token(user["id"])
    async with (
        one.router.lifespan_context(one),
        two.router.lifespan_context(two),
        serve(two) as url,
        connect(f"{url}/cabinet/ws?token={token}") as ws,
    ):
        assert (await receive(ws))["type"] == "connected"
        transport = httpx2.ASGITransport(app=one)
        async with httpx2.AsyncClient(transport=transport, base_url="http://one") as http:
            response = await http.post(
                f"/users/{user['id']}/balance", json={"amount_kopeks": 700}, headers={"X-API-Key": api_key}
            )
        assert response.status_code == 200
        message = await receive(ws)
        assert (message["type"], message["amount_kopeks"], message["new_balance_kopeks"]) == (
            "balance.topup",
            700,
            700,
        )
        await nothing_more(ws)

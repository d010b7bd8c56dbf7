"""The realtime channels `/ws` and `/cabinet/ws`, served by a real uvicorn on loopback and
spoken to with the `websockets` client: authentication and its close codes, ping/pong,
events raised through the API, messages for one user or for administrators, token
revocation, slow sockets, shutdown."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import jwt
import pytest
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from subsvc.app import create_app
from subsvc.realtime import Hub
from subsvc.testing import JWT_SECRET, wait_until
from subsvc.testing_server import LoopbackServer

ADMIN_GREETING = {"type": "connection", "status": "connected", "message": "WebSocket connection established"}


@asynccontextmanager
async def serving(app: Starlette) -> AsyncIterator[str]:
    """Serve a started app on a free loopback port; yields its ws:// base."""
    async with LoopbackServer(app) as server:
        yield server.ws_url


@pytest.fixture
async def base(app: Starlette) -> AsyncIterator[str]:
    async with serving(app) as url:
        yield url


async def receive(ws: ClientConnection, seconds: float = 5.0) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), seconds))


@asynccontextmanager
async def admin_and_user(
    app: Starlette, url: str, api_key: str
) -> AsyncIterator[tuple[ClientConnection, ClientConnection]]:
    """An administrator's ``/ws`` and user 2's ``/cabinet/ws`` on ``url`` (tokens of ``app``),
    both greeted."""
    async with (
        connect(f"{url}/ws?token={api_key}") as admin,
        connect(f"{url}/cabinet/ws?token={app.state.jwt.access_token(2)}") as user,
    ):
        assert await receive(admin) == ADMIN_GREETING
        assert (await receive(user))["type"] == "connected"
        yield admin, user


async def closed_with(ws: ClientConnection) -> tuple[int, str]:
    """Read until the server closes; its close code and reason."""
    with pytest.raises(ConnectionClosed) as info:
        while True:
            await asyncio.wait_for(ws.recv(), 5)
    assert info.value.rcvd is not None
    return info.value.rcvd.code, info.value.rcvd.reason


# --- /ws ----------------------------------------------------------------------------------------


async def test_admin_socket_greets_answers_ping_and_ignores_the_rest(base, api_key):
    async with connect(f"{base}/ws?token={api_key}") as ws:
        assert await receive(ws) == ADMIN_GREETING
        await ws.send("not json")
        await ws.send(json.dumps({"type": "subscribe"}))
        await ws.send(b"\x00binary")
        await ws.send(json.dumps({"type": "ping"}))
        assert await receive(ws) == {"type": "pong"}


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("", "Unauthorized: No token provided"),
        ("?token=", "Unauthorized: No token provided"),
        ("?token=not-a-token", "Unauthorized: Invalid token"),
        ("?token=%E2%9C%93", "Unauthorized: Invalid token"),
    ],
)
async def test_admin_socket_refuses_missing_and_bad_tokens_with_1008(base, query, reason):
    async with connect(f"{base}/ws{query}") as ws:
        assert await closed_with(ws) == (1008, reason)


async def test_admin_socket_takes_api_key_parameter_and_header(base, api_key):
    async with connect(f"{base}/ws?api_key={api_key}") as ws:
        assert await receive(ws) == ADMIN_GREETING
    async with connect(f"{base}/ws", additional_headers={"X-API-Key": api_key}) as ws:
        assert await receive(ws) == ADMIN_GREETING


async def test_admin_socket_refuses_a_cabinet_jwt(base, user_token):
    async with connect(f"{base}/ws?token={user_token}") as ws:
        assert await closed_with(ws) == (1008, "Unauthorized: Invalid token")


async def test_event_raised_through_the_api_reaches_every_admin_socket(base, api_key, client):
    async with connect(f"{base}/ws?token={api_key}") as one, connect(f"{base}/ws?token={api_key}") as two:
        for ws in (one, two):
            assert await receive(ws) == ADMIN_GREETING
        response = await client.post("/probe/events", json={"text": "hello", "amount": 1})
        assert response.status_code == 201
        note = response.json()
        for ws in (one, two):
            message = await receive(ws)
            assert message["type"] == "probe.note_created"
            assert message["payload"] == {"note_id": note["id"], "text": "hello"}
            assert isinstance(message["id"], int)
            assert datetime.fromisoformat(message["timestamp"]).tzinfo is not None


async def test_event_of_a_rolled_back_request_reaches_nobody(base, api_key, client):
    async with connect(f"{base}/ws?token={api_key}") as ws:
        assert await receive(ws) == ADMIN_GREETING
        failed = await client.post("/probe/events?fail=true", json={"text": "lost", "amount": 1})
        assert failed.status_code == 409
        await client.post("/probe/events", json={"text": "kept", "amount": 1})
        assert (await receive(ws))["payload"]["text"] == "kept"


async def test_revoking_a_token_closes_its_admin_sockets(base, api_key, client):
    created = (await client.post("/tokens", json={"name": "dashboard"})).json()
    async with (
        connect(f"{base}/ws?token={created['token']}") as revoked,
        connect(f"{base}/ws?token={api_key}") as other,
    ):
        assert await receive(revoked) == ADMIN_GREETING
        assert await receive(other) == ADMIN_GREETING
        assert (await client.post(f"/tokens/{created['id']}/revoke")).status_code == 200
        assert await closed_with(revoked) == (1008, "Unauthorized: Invalid token")
        await other.send(json.dumps({"type": "ping"}))
        assert await receive(other) == {"type": "pong"}


# --- /cabinet/ws --------------------------------------------------------------------------------


async def test_cabinet_socket_greets_with_user_and_admin_flag(base, user_token, admin_token):
    async with connect(f"{base}/cabinet/ws?token={user_token}") as ws:
        assert await receive(ws) == {"type": "connected", "user_id": 2, "is_admin": False}
        await ws.send(json.dumps({"type": "ping"}))
        assert await receive(ws) == {"type": "pong"}
    async with connect(f"{base}/cabinet/ws?token={admin_token}") as ws:
        assert await receive(ws) == {"type": "connected", "user_id": 1, "is_admin": True}
    async with connect(
        f"{base}/cabinet/ws", additional_headers={"Authorization": f"Bearer {user_token}"}
    ) as ws:
        assert (await receive(ws))["user_id"] == 2


def _forged(secret: str, **claims: Any) -> str:
    now = datetime.now(UTC)
    payload = {"sub": "2", "type": "access", "iat": now, "exp": now + timedelta(minutes=5), **claims}
    return jwt.encode(payload, secret, algorithm="HS256")


@pytest.mark.parametrize(
    "make_token",
    [
        pytest.param(lambda app: "garbage", id="malformed"),
        pytest.param(lambda app: app.state.jwt.refresh_token(2), id="refresh-token"),
        pytest.param(
            lambda app: _forged(JWT_SECRET, exp=datetime.now(UTC) - timedelta(seconds=5)), id="expired"
        ),
        pytest.param(lambda app: _forged("another-secret-that-is-long-enough-0123456789"), id="wrong-key"),
        pytest.param(
            lambda app: jwt.encode({"sub": "2", "type": "access", "exp": 9999999999}, None, algorithm="none"),
            id="alg-none",
        ),
    ],
)
async def test_cabinet_socket_refuses_bad_tokens_with_1008(app, base, make_token):
    async with connect(f"{base}/cabinet/ws?token={make_token(app)}") as ws:
        assert await closed_with(ws) == (1008, "Unauthorized: Invalid token")


async def test_cabinet_socket_without_token_is_closed_with_1008(base, api_key):
    async with connect(f"{base}/cabinet/ws") as ws:
        assert await closed_with(ws) == (1008, "Unauthorized: No token")
    async with connect(f"{base}/cabinet/ws?token={api_key}") as ws:  # an API key is no JWT
        assert await closed_with(ws) == (1008, "Unauthorized: Invalid token")


async def test_messages_reach_only_their_users_sockets(app, base, user_token, admin_token):
    hub: Hub = app.state.realtime
    other_token = app.state.jwt.access_token(3)
    async with (
        connect(f"{base}/cabinet/ws?token={user_token}") as first,
        connect(f"{base}/cabinet/ws?token={user_token}") as second,
        connect(f"{base}/cabinet/ws?token={other_token}") as other,
        connect(f"{base}/cabinet/ws?token={admin_token}") as admin,
    ):
        for ws in (first, second, other, admin):
            assert (await receive(ws))["type"] == "connected"
        await hub.send_to_user(
            2, {"type": "balance.topup", "amount_kopeks": 500, "when": datetime(2030, 1, 2, tzinfo=UTC)}
        )
        await hub.send_to_cabinet_admins(
            {"type": "ticket.new", "ticket_id": 7, "title": "Help", "user_id": 3}
        )
        await hub.send_to_user(3, {"type": "account.warning", "message": "Привет"})
        expected = {"type": "balance.topup", "amount_kopeks": 500, "when": "2030-01-02T00:00:00Z"}
        assert await receive(first) == expected
        assert await receive(second) == expected
        assert await receive(admin) == {"type": "ticket.new", "ticket_id": 7, "title": "Help", "user_id": 3}
        assert await receive(other) == {"type": "account.warning", "message": "Привет"}
        for ws in (first, second, other, admin):  # nothing else was queued for anyone
            await ws.send(json.dumps({"type": "ping"}))
            assert await receive(ws) == {"type": "pong"}
    await wait_until(lambda: not hub.users)


def small_window_socket(base: str) -> socket.socket:
    """A client socket with a small receive buffer, so that a client that does not read
    soon stops the server's writes (loopback buffers otherwise grow to tens of megabytes)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    host, port = base.removeprefix("ws://").split(":")
    sock.connect((host, int(port)))
    sock.setblocking(False)
    return sock


async def test_a_slow_socket_is_dropped_without_holding_up_the_others(app, base, user_token):
    hub: Hub = app.state.realtime
    hub.queue_size = 4
    blob = "x" * 65536
    count = 200
    async with (
        connect(
            f"{base}/cabinet/ws?token={user_token}",
            sock=small_window_socket(base),
            max_queue=1,
            compression=None,
        ) as slow,
        connect(f"{base}/cabinet/ws?token={user_token}", max_size=None) as fast,
    ):
        assert (await receive(fast))["type"] == "connected"
        await wait_until(lambda: len(hub.users.get(2, ())) == 2)
        for number in range(count):  # the fast client gets each message at once; the slow one reads nothing
            await hub.send_to_user(2, {"type": "bulk", "n": number, "blob": blob})
            assert (await receive(fast))["n"] == number
        assert len(hub.users[2]) == 1  # the slow one is gone
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(count + 1):  # what was under way, then the close
                await asyncio.wait_for(slow.recv(), 10)
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
            1013,
            "Too slow: message queue overflow",
        )


async def test_shutdown_closes_sockets_with_1001(subsvc_settings, app, api_key, user_token):
    other = create_app(subsvc_settings, plugins=["subsvc_probe"])
    async with (
        other.router.lifespan_context(other),
        serving(other) as url,
        admin_and_user(other, url, api_key) as (admin, user),
    ):
        await other.state.realtime.close()
        assert await closed_with(admin) == (1001, "Server shutting down")
        assert await closed_with(user) == (1001, "Server shutting down")


# --- across instances -----------------------------------------------------------------------------


async def test_fan_out_across_two_instances_on_one_redis(redis_url, subsvc_settings, app, api_key):
    await app.state.events.stop()  # only the two instances on Redis dispatch events here
    settings = subsvc_settings.model_copy(update={"REDIS_URL": redis_url})
    one, two = create_app(settings, plugins=["subsvc_probe"]), create_app(settings, plugins=["subsvc_probe"])
    async with (
        one.router.lifespan_context(one),
        two.router.lifespan_context(two),
        serving(two) as url,
        admin_and_user(two, url, api_key) as (admin, user),
    ):
        transport = httpx2.ASGITransport(app=one)
        async with httpx2.AsyncClient(transport=transport, base_url="http://one") as http:
            response = await http.post(
                "/probe/events", json={"text": "from one", "amount": 2}, headers={"X-API-Key": api_key}
            )
        assert response.status_code == 201
        message = await receive(admin)
        assert (message["type"], message["payload"]["text"]) == ("probe.note_created", "from one")
        await one.state.realtime.send_to_user(2, {"type": "balance.change", "amount_kopeks": -100})
        assert await receive(user) == {"type": "balance.change", "amount_kopeks": -100}


async def test_a_token_that_cannot_be_checked_is_closed_with_1011(subsvc_settings, app, api_key, tmp_path):
    down = f"sqlite+aiosqlite:///{tmp_path}/missing/db.sqlite"  # a folder that does not exist
    other = create_app(
        subsvc_settings.model_copy(update={"DATABASE_URL": down, "DATABASE_TIMEOUT": 1.0}), plugins=[]
    )
    async with (
        other.router.lifespan_context(other),
        serving(other) as url,
        connect(f"{url}/ws?token={api_key}") as ws,
    ):
        assert await closed_with(ws) == (1011, "Service temporarily unavailable")

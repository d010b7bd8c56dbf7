"""Across instances: a token revoked on one app instance is refused at once by another
that had it cached (Redis pub/sub invalidation)."""

from __future__ import annotations

import httpx2

from subsvc.app import create_app
from subsvc.testing import API_KEY, wait_until


async def test_revocation_reaches_the_other_instance(redis_url, subsvc_settings, app):
    settings = subsvc_settings.model_copy(update={"REDIS_URL": redis_url})
    one, two = create_app(settings, plugins=["subsvc_probe"]), create_app(settings, plugins=["subsvc_probe"])
    async with one.router.lifespan_context(one), two.router.lifespan_context(two):
        clients = [
            httpx2.AsyncClient(transport=httpx2.ASGITransport(app=a), base_url="http://t") for a in (one, two)
        ]
        async with clients[0] as a, clients[1] as b:
            created = (
                await a.post("/tokens", json={"name": "shared"}, headers={"X-API-Key": API_KEY})
            ).json()
            headers = {"X-API-Key": created["token"]}
            assert (await b.get("/plugins", headers=headers)).status_code == 200  # cached on instance two
            r = await a.post(f"/tokens/{created['id']}/revoke", headers={"X-API-Key": API_KEY})
            assert r.status_code == 200

            async def refused() -> bool:
                return (await b.get("/plugins", headers=headers)).status_code == 401

            await wait_until(refused)  # the message crosses Redis asynchronously


async def test_buses_on_other_redis_database_numbers_do_not_hear_each_other(redis_url):
    """Pub/sub ignores database numbers; the bus's channel names carry them."""
    import asyncio

    from sqlalchemy.engine import make_url

    from subsvc.bus import RedisBus

    url = make_url(redis_url)
    other = url.set(database=str((int(url.database or 0) + 8) % 16)).render_as_string(hide_password=False)
    same, neighbour, apart = RedisBus(redis_url), RedisBus(redis_url), RedisBus(other)
    heard: dict[str, list[str]] = {"same": [], "apart": []}
    same.subscribe("probe", lambda message: heard["same"].append(message))
    apart.subscribe("probe", lambda message: heard["apart"].append(message))
    for bus in (same, neighbour, apart):
        await bus.start()
    try:
        await neighbour.publish("probe", "hello")
        await wait_until(lambda: heard["same"])
        await asyncio.sleep(0.1)  # time for a stray delivery to arrive, were there one
        assert heard == {"same": ["hello"], "apart": []}
    finally:
        for bus in (same, neighbour, apart):
            await bus.stop()


async def test_a_burst_of_messages_arrives_whole_and_in_order(redis_url):
    """Published without waiting for Redis (sent together, a pipeline per batch)."""
    from subsvc.bus import RedisBus

    sender, receiver = RedisBus(redis_url), RedisBus(redis_url)
    heard: list[str] = []
    receiver.subscribe("burst", heard.append)
    for bus in (sender, receiver):
        await bus.start()
    try:
        expected = [f"message {number}" for number in range(500)]
        for message in expected[:250]:
            await sender.publish("burst", message)
        await wait_until(lambda: len(heard) >= 250)
        for message in expected[250:]:
            await sender.publish("burst", message)
        await sender.stop()  # sends what is still queued first
        await wait_until(lambda: len(heard) >= 500)
        assert heard == expected
    finally:
        for bus in (sender, receiver):
            await bus.stop()


async def test_without_redis_a_message_reaches_this_process_and_a_warning_is_logged(caplog):
    import socket

    from subsvc.bus import RedisBus

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    bus = RedisBus(f"redis://127.0.0.1:{port}/0")
    heard: list[str] = []
    bus.subscribe("local", heard.append)
    try:
        await bus.publish("local", "one")
        await bus.publish("local", "two")
        await wait_until(lambda: len(heard) >= 2)
        assert heard == ["one", "two"]
        assert any("redis publish of" in record.getMessage() for record in caplog.records)
    finally:
        await bus.stop()

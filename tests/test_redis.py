"""Across instances: a token revoked on one app instance is refused at once by another
that had it cached (Redis pub/sub invalidation)."""

from __future__ import annotations

import os

import httpx2
import pytest

from subsvc.app import create_app
from subsvc.testing import API_KEY

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
async def redis_available():
    import redis.asyncio as redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        await client.ping()
    except Exception:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no Redis at {REDIS_URL}")
    finally:
        await client.aclose()


async def test_revocation_reaches_the_other_instance(redis_available, subsvc_settings, app):
    settings = subsvc_settings.model_copy(update={"REDIS_URL": REDIS_URL})
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
            for _ in range(50):  # the message crosses Redis asynchronously
                if (await b.get("/plugins", headers=headers)).status_code == 401:
                    break
                import asyncio

                await asyncio.sleep(0.02)
            assert (await b.get("/plugins", headers=headers)).status_code == 401

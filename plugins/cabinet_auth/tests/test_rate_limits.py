"""Every login endpoint is rate-limited per client IP: 429 with Retry-After."""

from __future__ import annotations

import httpx2
import pytest

from subsvc.testing import asgi_transport

MESSENGER = "/cabinet/auth/messenger"


async def _client(app, peer: str) -> httpx2.AsyncClient:
    transport = asgi_transport(app, peer)
    return httpx2.AsyncClient(transport=transport, base_url="http://testserver")


@pytest.mark.parametrize(
    ("path", "body", "limit"),
    [
        (MESSENGER, {"init_data": "auth_date=1&hash=00"}, 10),
        (
            "/cabinet/auth/messenger/widget",
            {"id": 1, "first_name": "a", "auth_date": 1, "hash": "0" * 64},
            10,
        ),
        ("/cabinet/auth/messenger/oidc", {"id_token": "x"}, 10),
        ("/cabinet/auth/login/auto", {"token": "x"}, 5),
        ("/cabinet/auth/deeplink/request", None, 10),
        ("/cabinet/auth/deeplink/poll", {"token": "x" * 20}, 60),
    ],
)
async def test_each_login_endpoint_answers_429_past_its_limit(anon_client, path, body, limit):
    statuses = [(await anon_client.post(path, json=body)).status_code for _ in range(limit)]
    limited = await anon_client.post(path, json=body)

    assert 429 not in statuses
    assert limited.status_code == 429
    assert limited.json() == {"detail": "Too many requests"}
    assert 1 <= int(limited.headers["retry-after"]) <= 60


async def test_limits_count_per_client_ip_and_per_endpoint(app, anon_client):
    for _ in range(10):
        await anon_client.post(MESSENGER, json={"init_data": "x"})
    async with await _client(app, "10.0.0.7") as other:
        elsewhere = await other.post(MESSENGER, json={"init_data": "x"})
    other_endpoint = await anon_client.post("/cabinet/auth/messenger/oidc", json={"id_token": "x"})

    assert (await anon_client.post(MESSENGER, json={"init_data": "x"})).status_code == 429
    assert elsewhere.status_code == 401
    assert other_endpoint.status_code != 429


async def test_forwarded_for_from_an_untrusted_peer_is_ignored(anon_client):
    """Anyone can send X-Forwarded-For: without a trusted proxy it must not pick the counter."""
    for index in range(10):
        await anon_client.post(
            MESSENGER, json={"init_data": "x"}, headers={"X-Forwarded-For": f"1.2.3.{index}"}
        )

    response = await anon_client.post(
        MESSENGER, json={"init_data": "x"}, headers={"X-Forwarded-For": "9.9.9.9"}
    )

    assert response.status_code == 429


@pytest.mark.parametrize(
    "subsvc_settings_overrides", [{"TRUSTED_PROXIES": ["127.0.0.0/8"], "BOT_TOKEN": "1:x"}]
)
async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_counter(anon_client):
    def forwarded(client: str) -> dict[str, str]:
        return {"X-Forwarded-For": f"{client}, 127.0.0.2"}  # the client, then an inner proxy

    for _ in range(10):
        await anon_client.post(MESSENGER, json={"init_data": "x"}, headers=forwarded("203.0.113.5"))

    limited = await anon_client.post(MESSENGER, json={"init_data": "x"}, headers=forwarded("203.0.113.5"))
    other_client = await anon_client.post(
        MESSENGER, json={"init_data": "x"}, headers=forwarded("203.0.113.6")
    )
    spoofed = await anon_client.post(
        MESSENGER, json={"init_data": "x"}, headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.5"}
    )

    assert limited.status_code == 429
    assert other_client.status_code == 401
    assert spoofed.status_code == 429  # the right-most untrusted address counts, not the forged first one


@pytest.mark.parametrize(
    "subsvc_settings_overrides",
    [{"RATE_LIMITS": ["messenger_login=2/minute"], "BOT_TOKEN": "1:x"}, {"RATE_LIMIT_ENABLED": False}],
)
async def test_limits_can_be_overridden_or_switched_off(anon_client, subsvc_settings_overrides):
    statuses = [(await anon_client.post(MESSENGER, json={"init_data": "x"})).status_code for _ in range(12)]

    if subsvc_settings_overrides.get("RATE_LIMIT_ENABLED") is False:
        assert 429 not in statuses
    else:
        assert 429 not in statuses[:2] and set(statuses[2:]) == {429}

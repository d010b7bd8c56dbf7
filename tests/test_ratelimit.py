"""Rate limits per client IP (subsvc.ratelimit): counting, Retry-After, trusted proxies,
overrides, Redis shared across instances, and failing closed when Redis is down."""

from __future__ import annotations

import uuid
from typing import Any

import httpx2
import pytest
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from subsvc.api.errors import HTTPError, http_error_handler
from subsvc.ratelimit import client_ip, close_rate_limiter, rate_limit, rate_limiter
from subsvc.settings import Settings
from subsvc.testing import asgi_transport


def make_app(**settings: Any) -> Starlette:
    """A bare app whose one route counts hits of ``login`` (3 a minute) per client IP."""

    async def login(request: Request) -> JSONResponse:
        await rate_limit(request, "login", "3/minute")
        return JSONResponse({"ip": client_ip(request)})

    app = Starlette(
        routes=[Route("/login", login, methods=["POST"])], exception_handlers={HTTPError: http_error_handler}
    )
    app.state.settings = Settings(_env_file=None, **settings)
    return app


def client_of(app: Starlette, peer: str = "192.0.2.10") -> httpx2.AsyncClient:
    transport = asgi_transport(app, peer)
    return httpx2.AsyncClient(transport=transport, base_url="http://testserver")


async def test_past_the_limit_429_with_retry_after():
    app = make_app()
    async with client_of(app) as http:
        allowed = [await http.post("/login") for _ in range(3)]
        limited = await http.post("/login")

    assert [r.status_code for r in allowed] == [200, 200, 200]
    assert allowed[0].json() == {"ip": "192.0.2.10"}
    assert limited.status_code == 429
    assert limited.json() == {"detail": "Too many requests"}
    assert 55 <= int(limited.headers["retry-after"]) <= 60
    await close_rate_limiter(app)


async def test_each_ip_has_its_own_counter():
    app = make_app()
    async with client_of(app, "192.0.2.1") as one, client_of(app, "192.0.2.2") as two:
        for _ in range(3):
            await one.post("/login")
        assert (await one.post("/login")).status_code == 429
        assert (await two.post("/login")).status_code == 200
    await close_rate_limiter(app)


@pytest.mark.parametrize(
    ("peer", "headers", "expected"),
    [
        ("198.51.100.7", {"X-Forwarded-For": "1.1.1.1"}, "198.51.100.7"),  # untrusted peer: header ignored
        ("10.0.0.2", {"X-Forwarded-For": "203.0.113.9"}, "203.0.113.9"),
        (
            "10.0.0.2",
            {"X-Forwarded-For": "6.6.6.6, 203.0.113.9, 10.0.0.3"},
            "203.0.113.9",
        ),  # right-most untrusted
        ("10.0.0.2", {"X-Forwarded-For": "10.0.0.5, 10.0.0.3"}, "10.0.0.5"),  # all proxies: the farthest
        ("10.0.0.2", {"X-Forwarded-For": "junk, 203.0.113.9"}, "203.0.113.9"),
        (
            "10.0.0.2",
            {"X-Forwarded-For": "203.0.113.9, junk"},
            "10.0.0.2",
        ),  # unreadable hop: stop at the proxy
        ("10.0.0.2", {"X-Real-IP": "203.0.113.8"}, "203.0.113.8"),
        ("10.0.0.2", {}, "10.0.0.2"),
        ("::ffff:10.0.0.2", {"X-Forwarded-For": "2001:db8::1"}, "2001:db8::1"),
    ],
)
async def test_client_ip_trusts_forwarded_headers_only_from_trusted_proxies(peer, headers, expected):
    app = make_app(TRUSTED_PROXIES=["10.0.0.0/8"])
    async with client_of(app, peer) as http:
        response = await http.post("/login", headers=headers)
    assert response.json() == {"ip": expected}
    await close_rate_limiter(app)


async def test_overrides_and_switching_off():
    tight, off = make_app(RATE_LIMITS=["login=1/minute"]), make_app(RATE_LIMIT_ENABLED=False)
    async with client_of(tight) as a, client_of(off) as b:
        assert [(await a.post("/login")).status_code for _ in range(2)] == [200, 429]
        assert {(await b.post("/login")).status_code for _ in range(10)} == {200}
    for app in (tight, off):
        await close_rate_limiter(app)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TRUSTED_PROXIES", "10.0.0.0/8,not-a-network"),
        ("RATE_LIMITS", "login"),
        ("RATE_LIMITS", "login=lots"),
    ],
)
def test_bad_settings_are_refused(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError, match=name):
        Settings(_env_file=None)


async def test_settings_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8, 192.168.1.1")
    monkeypatch.setenv("RATE_LIMITS", "login=5/minute, messenger_login=2 per 10 seconds")
    settings = Settings(_env_file=None)
    assert settings.TRUSTED_PROXIES == ["10.0.0.0/8", "192.168.1.1"]
    app = Starlette()
    app.state.settings = settings
    limiter = rate_limiter(app)
    assert limiter.overrides == {"login": "5/minute", "messenger_login": "2 per 10 seconds"}
    assert [str(item) for item in limiter.items("messenger_login", "1/minute")] == ["2 per 10 second"]


async def test_instances_sharing_redis_share_the_counters(redis_url):
    action = f"login-{uuid.uuid4().hex}"  # a fresh counter in the shared database

    async def endpoint(request: Request) -> JSONResponse:
        await rate_limit(request, action, "3/minute")
        return JSONResponse({})

    apps = []
    for _ in range(2):
        app = Starlette(
            routes=[Route("/login", endpoint, methods=["POST"])],
            exception_handlers={HTTPError: http_error_handler},
        )
        app.state.settings = Settings(_env_file=None, REDIS_URL=redis_url)
        apps.append(app)
    async with client_of(apps[0]) as one, client_of(apps[1]) as two:
        statuses = [(await http.post("/login")).status_code for http in (one, two, one)]
        limited = await two.post("/login")

    assert statuses == [200, 200, 200]
    assert limited.status_code == 429
    assert int(limited.headers["retry-after"]) >= 1
    for app in apps:
        await close_rate_limiter(app)


async def test_redis_down_fails_closed_with_503():
    app = make_app(REDIS_URL="redis://127.0.0.1:1/0")  # nothing listens on port 1
    async with client_of(app) as http:
        response = await http.post("/login")
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    await close_rate_limiter(app)

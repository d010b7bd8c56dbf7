"""Run cabinet_oauth with the plugins it needs against a loopback fake provider; helpers to
log in, link and make users."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_cabinet_oauth.testing import FakeProvider, callback_body, serve, start_and_authorize

BOT_TOKEN = "123456:TEST-bot-token-for-oauth-links"
PLUGINS = ["cabinet_oauth", "billing", "subscriptions"]


@pytest.fixture(scope="session")
async def oauth_provider() -> AsyncIterator[FakeProvider]:
    async with serve(FakeProvider()) as fake:
        yield fake


@pytest.fixture
def fake(oauth_provider: FakeProvider) -> FakeProvider:
    oauth_provider.reset()
    return oauth_provider


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return PLUGINS


@pytest.fixture
def oauth_env() -> dict[str, str]:
    """Extra environment for the plugin's settings (override per test)."""
    return {}


@pytest.fixture
def subsvc_settings_overrides(
    monkeypatch: pytest.MonkeyPatch, fake: FakeProvider, oauth_env: dict[str, str]
) -> dict[str, Any]:
    for name, value in {**fake.env(), "CABINET_URL": "https://cabinet.example", **oauth_env}.items():
        monkeypatch.setenv(name, value)
    return {"BOT_TOKEN": BOT_TOKEN, "CORS_ORIGINS": ["https://app.example"]}


@pytest.fixture
def bearer(app: Starlette) -> Callable[[int], dict[str, str]]:
    """Headers with an access JWT of a user (as a login would issue)."""

    def headers(user_id: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {app.state.jwt.access_token(user_id)}"}

    return headers


@pytest.fixture
def oauth_login(
    anon_client: httpx2.AsyncClient, fake: FakeProvider
) -> Callable[..., Awaitable[httpx2.Response]]:
    """``await oauth_login("google", account(...))``: the whole login round trip."""

    async def run(provider: str, profile: dict[str, Any], **extra: Any) -> httpx2.Response:
        _, back = await start_and_authorize(
            anon_client, fake, f"/cabinet/auth/oauth/{provider}/authorize", profile
        )
        return await anon_client.post(
            f"/cabinet/auth/oauth/{provider}/callback", json={**callback_body(back), **extra}
        )

    return run


@pytest.fixture
def oauth_link(
    anon_client: httpx2.AsyncClient, fake: FakeProvider, bearer: Callable[[int], dict[str, str]]
) -> Callable[..., Awaitable[httpx2.Response]]:
    """``await oauth_link(user_id, "google", account(...))``: the whole linking round trip."""

    async def run(user_id: int, provider: str, profile: dict[str, Any]) -> httpx2.Response:
        headers = bearer(user_id)
        path = f"/cabinet/auth/account/link/{provider}/init"
        _, back = await start_and_authorize(anon_client, fake, path, profile, headers=headers)
        return await anon_client.post(
            f"/cabinet/auth/account/link/{provider}/callback", json=callback_body(back), headers=headers
        )

    return run


def _signed_init_data(messenger_id: int, *, auth_date: int | None = None, **user: Any) -> str:
    """Mini-application init data signed as the messenger signs it."""
    fields = {
        "auth_date": str(auth_date or int(time.time())),
        "query_id": "AAH-test",
        "user": json.dumps({"id": messenger_id, "first_name": "Max", **user}, separators=(",", ":")),
    }
    secret = hmac.new(b"WebAppData", BOT_TOKEN.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def _signed_widget(messenger_id: int, *, auth_date: int | None = None, **names: Any) -> dict[str, Any]:
    """Login-widget fields signed as the messenger signs them."""
    fields: dict[str, Any] = {
        "id": messenger_id,
        "first_name": "Max",
        "auth_date": auth_date or int(time.time()),
        **names,
    }
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hashlib.sha256(BOT_TOKEN.encode()).digest()
    return {**fields, "hash": hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()}


@pytest.fixture
def sign() -> Any:
    """``sign.init_data(messenger_id)`` / ``sign.widget(messenger_id)``: signed messenger data."""

    class Signer:
        init_data = staticmethod(_signed_init_data)
        widget = staticmethod(_signed_widget)

    return Signer

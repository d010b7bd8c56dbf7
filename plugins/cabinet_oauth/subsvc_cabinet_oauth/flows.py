"""The OAuth round trip: hand out a state and an authorization URL, then take the state
back, trade the code for a token and read who the user is at the provider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request

from subsvc.db import Database
from subsvc.services import services
from subsvc_cabinet_oauth import errors, providers, tokens
from subsvc_cabinet_oauth.models import LINK, LOGIN, OAuthState
from subsvc_cabinet_oauth.providers import Profile
from subsvc_cabinet_oauth.settings import CabinetOAuthSettings, ProviderConfig

CALLBACK_PATH = "/auth/oauth/callback"


def oauth_settings(app: Starlette) -> CabinetOAuthSettings:
    return CabinetOAuthSettings.of(app)


def http_client(app: Starlette) -> httpx2.AsyncClient:
    """The app's client for provider calls (made on first use, closed at shutdown)."""
    state: Any = app.state
    client: httpx2.AsyncClient | None = getattr(state, "cabinet_oauth_http", None)
    if client is None:
        timeout = oauth_settings(app).OAUTH_HTTP_TIMEOUT_SECONDS
        client = state.cabinet_oauth_http = httpx2.AsyncClient(timeout=timeout, follow_redirects=False)
    return client


async def close_http_client(app: Starlette) -> None:
    state: Any = app.state
    client: httpx2.AsyncClient | None = getattr(state, "cabinet_oauth_http", None)
    if client is not None:
        state.cabinet_oauth_http = None
        await client.aclose()


def provider_config(app: Starlette, name: str) -> ProviderConfig:
    """An enabled provider's configuration; 400 when it is not offered."""
    config = oauth_settings(app).provider(name)
    if not config.enabled:
        raise errors.FlowError(400, errors.PROVIDER_UNAVAILABLE)
    return config


def _origin(url: str) -> str | None:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower()


def redirect_uri(request: Request) -> str:
    """``{Origin}/auth/oauth/callback`` when the request's Origin is an allowed browser origin
    (listed in ``CORS_ORIGINS``, or the cabinet's own), else ``{CABINET_URL}/auth/oauth/callback``."""
    settings = oauth_settings(request.app)
    cabinet = settings.CABINET_URL.rstrip("/")
    origin = _origin(request.headers.get("origin", ""))
    if origin is not None:
        allowed = {_origin(item) for item in services(request.app).settings.CORS_ORIGINS if item != "*"}
        allowed.add(_origin(cabinet))
        if origin in allowed:
            return origin + CALLBACK_PATH
    return cabinet + CALLBACK_PATH


@dataclass(frozen=True)
class Authorization:
    """Where to send the browser, and the state that will come back."""

    authorize_url: str
    state: str


async def start(request: Request, provider: str, purpose: str, user_id: int | None = None) -> Authorization:
    """Store a fresh state (with a PKCE verifier where the provider takes one) for
    ``purpose`` (login or link) and build the provider's authorization URL."""
    config = provider_config(request.app, provider)
    verifier, challenge = providers.pkce_pair() if providers.SPECS[provider].pkce else (None, None)
    uri = redirect_uri(request)
    db: Database = services(request.app).db
    async with db.session() as session:
        state = await tokens.create_state(
            session,
            provider=provider,
            purpose=purpose,
            redirect_uri=uri,
            ttl_seconds=oauth_settings(request.app).OAUTH_STATE_TTL_SECONDS,
            user_id=user_id,
            code_verifier=verifier,
        )
        await session.commit()
    url = providers.authorize_url(config, state=state, redirect_uri=uri, code_challenge=challenge)
    return Authorization(url, state)


async def take_state(
    request: Request, state: str, *, provider: str | None, purpose: str, user_id: int | None = None
) -> OAuthState:
    """Consume a state and check it was made for this provider, purpose and user."""
    row = await tokens.consume_state(services(request.app).db, state)
    if row is None or (provider is not None and row.provider != provider):
        raise errors.FlowError(400, errors.INVALID_STATE)
    if row.purpose != purpose:
        raise errors.FlowError(400, errors.NOT_FOR_LINKING if purpose == LINK else errors.NOT_FOR_LOGIN)
    if purpose == LINK and user_id is not None and row.user_id != user_id:
        raise errors.FlowError(400, errors.OTHER_USER_STATE)
    return row


async def fetch_profile(
    request: Request, row: OAuthState, state: str, code: str, device_id: str | None
) -> Profile:
    """Trade the code (with the state's verifier and redirect URI) and read the profile."""
    config = provider_config(request.app, row.provider)
    http = http_client(request.app)
    try:
        access_token = await providers.exchange_code(
            http,
            config,
            code=code,
            redirect_uri=row.redirect_uri,
            code_verifier=row.code_verifier,
            state=state,
            device_id=device_id,
        )
    except providers.ProviderError:
        raise errors.FlowError(400, errors.EXCHANGE_FAILED) from None
    try:
        return await providers.fetch_profile(http, config, access_token)
    except providers.ProviderError:
        raise errors.FlowError(400, errors.USERINFO_FAILED) from None


__all__ = ["LINK", "LOGIN", "Authorization", "fetch_profile", "start", "take_state"]

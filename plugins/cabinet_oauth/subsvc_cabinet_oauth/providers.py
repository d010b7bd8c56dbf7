"""The four providers' OAuth 2.0 protocols: authorization URL, code exchange, user info.

Each provider is reached at the URLs its settings give (the real ones by default), with one
shared HTTP client per app. Answers are normalised into a :class:`Profile`. Anything but a
well-formed success raises :class:`TokenExchangeFailed` or :class:`UserInfoFailed`.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx2

from subsvc_cabinet_oauth.settings import ProviderConfig

log = logging.getLogger("subsvc.cabinet_oauth")


class ProviderError(Exception):
    """A provider answered something other than a usable success."""


class TokenExchangeFailed(ProviderError):
    """The token endpoint refused the code or could not be reached."""


class UserInfoFailed(ProviderError):
    """The userinfo endpoint refused the token, could not be reached, or named no user."""


@dataclass(frozen=True)
class Spec:
    """What differs between providers, beyond their URLs."""

    name: str
    display_name: str
    scope: str
    pkce: bool
    extra_authorize_params: tuple[tuple[str, str], ...] = ()


SPECS: dict[str, Spec] = {
    "google": Spec(
        "google",
        "Google",
        "openid email profile",
        pkce=True,
        extra_authorize_params=(("prompt", "select_account"),),
    ),
    "yandex": Spec(
        "yandex",
        "Yandex",
        "login:info login:email",
        pkce=True,
        extra_authorize_params=(("force_confirm", "yes"),),
    ),
    "discord": Spec(
        "discord", "Discord", "identify email", pkce=False, extra_authorize_params=(("prompt", "consent"),)
    ),
    "vk": Spec("vk", "VK ID", "vkid.personal_info email", pkce=True),
}


@dataclass(frozen=True)
class Profile:
    """A provider's account, normalised."""

    provider: str
    subject: str
    email: str | None = None
    email_verified: bool = False
    first_name: str | None = None
    last_name: str | None = None
    username: str | None = None

    @property
    def display_name(self) -> str | None:
        names = " ".join(part for part in (self.first_name, self.last_name) if part)
        return names or self.username


def pkce_pair() -> tuple[str, str]:
    """A fresh PKCE verifier (86 URL-safe characters) and its S256 challenge."""
    verifier = secrets.token_urlsafe(64)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def authorize_url(
    config: ProviderConfig, *, state: str, redirect_uri: str, code_challenge: str | None
) -> str:
    """Where to send the browser: the provider's consent page for our client."""
    spec = SPECS[config.name]
    params = {
        "client_id": config.client_id,
        "redirect_uri": redirect_uri,
        "response_type": "code",
        "scope": spec.scope,
        "state": state,
        **dict(spec.extra_authorize_params),
    }
    if code_challenge is not None:
        params["code_challenge"] = code_challenge
        params["code_challenge_method"] = "S256"
    separator = "&" if "?" in config.authorize_url else "?"
    return f"{config.authorize_url}{separator}{urlencode(params)}"


async def exchange_code(
    http: httpx2.AsyncClient,
    config: ProviderConfig,
    *,
    code: str,
    redirect_uri: str,
    code_verifier: str | None,
    state: str,
    device_id: str | None = None,
) -> str:
    """Trade the authorization code for an access token (returned)."""
    form: dict[str, str] = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": config.client_id,
        "redirect_uri": redirect_uri,
    }
    if config.client_secret:
        form["client_secret"] = config.client_secret
    if code_verifier is not None:
        form["code_verifier"] = code_verifier
    if config.name == "vk":
        if not device_id:
            raise TokenExchangeFailed("VK ID needs the device_id of its callback")
        form.update(device_id=device_id, state=state)
    data = await _json(http, "POST", config.token_url, TokenExchangeFailed, data=form)
    token = data.get("access_token")
    if not isinstance(token, str) or not token:
        raise TokenExchangeFailed(f"{config.name} token endpoint answered without an access token")
    return token


async def fetch_profile(http: httpx2.AsyncClient, config: ProviderConfig, access_token: str) -> Profile:
    """The account the access token belongs to."""
    try:
        if config.name == "vk":
            data = await _json(
                http,
                "POST",
                config.userinfo_url,
                UserInfoFailed,
                data={"access_token": access_token, "client_id": config.client_id},
            )
            return _vk(data)
        scheme = "OAuth" if config.name == "yandex" else "Bearer"
        params = {"format": "json"} if config.name == "yandex" else None
        data = await _json(
            http,
            "GET",
            config.userinfo_url,
            UserInfoFailed,
            params=params,
            headers={"Authorization": f"{scheme} {access_token}"},
        )
        return _PARSERS[config.name](data)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserInfoFailed(f"{config.name} user info is malformed: {exc}") from None


async def _json(
    http: httpx2.AsyncClient, method: str, url: str, error: type[ProviderError], **options: Any
) -> dict[str, Any]:
    """A provider's JSON object answer; ``error`` for a transport failure, a non-2xx status,
    a non-object body or an ``error`` member (VK ID answers errors with 200)."""
    headers = {"Accept": "application/json", **options.pop("headers", {})}
    try:
        response = await http.request(method, url, headers=headers, **options)
    except httpx2.HTTPError as exc:
        log.warning("OAuth provider request to %s failed: %s", url, exc)
        response = None
    if response is None:  # raised outside the handler: no network error in the context chain
        raise error(f"request to {url} failed")
    if not response.is_success:
        log.warning("OAuth provider %s answered %s: %s", url, response.status_code, response.text[:200])
        raise error(f"{url} answered {response.status_code}")
    try:
        data = response.json()
    except ValueError:
        raise error(f"{url} answered something other than JSON") from None
    if not isinstance(data, dict) or data.get("error"):
        raise error(f"{url} answered an error: {str(data)[:200]}")
    return data


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return str(value).strip() or None if value not in (None, "") else None


def _flag(value: Any) -> bool:
    """Google sends booleans, some proxies the strings "true"/"false"."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _subject(value: Any) -> str:
    subject = str(value).strip() if value is not None else ""
    if not subject:
        raise ValueError("no user id")
    return subject


def _google(data: Mapping[str, Any]) -> Profile:
    return Profile(
        provider="google",
        subject=_subject(data.get("sub")),
        email=_text(data, "email"),
        email_verified=_flag(data.get("email_verified")),
        first_name=_text(data, "given_name"),
        last_name=_text(data, "family_name"),
    )


def _yandex(data: Mapping[str, Any]) -> Profile:
    emails = data.get("emails") or []
    email = _text(data, "default_email") or (str(emails[0]) if emails else None)
    return Profile(
        provider="yandex",
        subject=_subject(data.get("id")),
        email=email,
        email_verified=email is not None,  # Yandex gives only confirmed addresses
        first_name=_text(data, "first_name"),
        last_name=_text(data, "last_name"),
        username=_text(data, "login"),
    )


def _discord(data: Mapping[str, Any]) -> Profile:
    return Profile(
        provider="discord",
        subject=_subject(data.get("id")),
        email=_text(data, "email"),
        email_verified=_flag(data.get("verified")),
        first_name=_text(data, "global_name") or _text(data, "username"),
        username=_text(data, "username"),
    )


def _vk(data: Mapping[str, Any]) -> Profile:
    user = data.get("user")
    if not isinstance(user, dict):
        raise ValueError("no user object")
    email = _text(user, "email")
    return Profile(
        provider="vk",
        subject=_subject(user.get("user_id")),
        email=email,
        email_verified=email is not None,  # VK ID gives only confirmed addresses
        first_name=_text(user, "first_name"),
        last_name=_text(user, "last_name"),
    )


_PARSERS = {"google": _google, "yandex": _yandex, "discord": _discord}

"""The messenger's OpenID Connect ID tokens, verified against its provider's JWKS.

A token is accepted when its ``kid`` names a key of the provider's JWKS, its signature holds
under that key's algorithm (asymmetric only: RS*, PS*, ES*, EdDSA; never ``none`` or HMAC),
and ``iss``, ``aud``, ``exp``, ``iat`` and ``sub`` are present and right. Keys are cached
for ``MESSENGER_OIDC_JWKS_CACHE_SECONDS``; an unknown ``kid`` refetches at most once per
``REFETCH_COOLDOWN`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import httpx2
import jwt
from jwt import PyJWK

from subsvc_cabinet_auth.settings import CabinetAuthSettings

ASYMMETRIC = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
REFETCH_COOLDOWN = 30.0
LEEWAY_SECONDS = 30
log = logging.getLogger("subsvc.cabinet_auth.oidc")


class OIDCNotConfigured(RuntimeError):
    """No client id or issuer is set."""


class OIDCTokenError(ValueError):
    """The ID token is malformed, forged, expired or not for us."""


class ProviderUnavailable(RuntimeError):
    """The JWKS could not be fetched."""


class JWKSCache:
    """The provider's signing keys by ``kid``, fetched on demand."""

    def __init__(self, settings: CabinetAuthSettings) -> None:
        self.client_id = settings.MESSENGER_OIDC_CLIENT_ID
        self.issuer = settings.MESSENGER_OIDC_ISSUER
        url = settings.MESSENGER_OIDC_JWKS_URL
        if url is None and self.issuer:
            url = self.issuer.rstrip("/") + "/.well-known/jwks.json"
        self.url = url
        self.ttl = settings.MESSENGER_OIDC_JWKS_CACHE_SECONDS
        self.timeout = settings.MESSENGER_OIDC_TIMEOUT_SECONDS
        self.keys: dict[str, PyJWK] = {}
        self.fetched_at = float("-inf")
        self._lock = asyncio.Lock()
        self._http: httpx2.AsyncClient | None = None

    @property
    def configured(self) -> bool:
        return bool(self.client_id and self.issuer and self.url)

    async def key(self, kid: str) -> PyJWK:
        """The key ``kid``; refetches when the cache is stale or does not know it."""
        now = time.monotonic()
        fresh = now - self.fetched_at < self.ttl
        if kid in self.keys and fresh:
            return self.keys[kid]
        async with self._lock:
            now = time.monotonic()
            stale = now - self.fetched_at >= self.ttl
            if stale or (kid not in self.keys and now - self.fetched_at >= REFETCH_COOLDOWN):
                await self._fetch()
        if kid not in self.keys:
            raise OIDCTokenError(f"unknown signing key {kid!r}")
        return self.keys[kid]

    async def _fetch(self) -> None:
        assert self.url is not None
        if self._http is None:
            self._http = httpx2.AsyncClient(timeout=self.timeout)
        try:
            response = await self._http.get(self.url, headers={"Accept": "application/json"})
            response.raise_for_status()
            document = response.json()
        except Exception as exc:
            log.warning("fetching the messenger's JWKS from %s failed: %s", self.url, exc)
            if self.keys:  # keep serving the keys we had
                return
            raise ProviderUnavailable(str(exc)) from None
        keys: dict[str, PyJWK] = {}
        for data in document.get("keys", []) if isinstance(document, dict) else []:
            try:
                key = PyJWK(data)
            except jwt.PyJWTError:
                continue  # a key type or algorithm we do not use
            kid = data.get("kid")
            if isinstance(kid, str) and key.algorithm_name in ASYMMETRIC:
                keys[kid] = key
        self.keys = keys
        self.fetched_at = time.monotonic()

    async def verify(self, token: str) -> dict[str, Any]:
        """The claims of a valid ID token for our client id."""
        if not self.configured:
            raise OIDCNotConfigured("messenger OIDC is not configured")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise OIDCTokenError("not a JWT") from None
        kid, alg = header.get("kid"), header.get("alg")
        if not isinstance(kid, str) or alg not in ASYMMETRIC:
            raise OIDCTokenError(f"unacceptable header (alg {alg!r})")
        key = await self.key(kid)
        if key.algorithm_name != alg:
            raise OIDCTokenError(f"key {kid!r} is for {key.algorithm_name}, token says {alg}")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[key.algorithm_name],
                audience=self.client_id,
                issuer=self.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError as exc:
            raise OIDCTokenError(str(exc)) from None
        return claims

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

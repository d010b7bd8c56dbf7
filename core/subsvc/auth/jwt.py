"""Cabinet JWTs: HS256 access and refresh tokens, algorithm pinned, ``exp`` required."""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from collections import OrderedDict
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import jwt

from subsvc.settings import Settings

ALGORITHM = "HS256"
MIN_SECRET_BYTES = 32
VERIFIED_CACHE_SIZE = 10_000
TokenType = Literal["access", "refresh"]
log = logging.getLogger("subsvc.auth")


class TokenError(Exception):
    """The token is malformed, forged, expired or of the wrong type."""


class WeakSecretError(RuntimeError):
    """`CABINET_JWT_SECRET` is too short for this environment."""


class JWTCodec:
    """Issues and verifies the cabinet's tokens with one secret."""

    def __init__(self, secret: str, access_minutes: int = 15, refresh_days: int = 7) -> None:
        self.secret = secret
        self.access_lifetime = timedelta(minutes=access_minutes)
        self.refresh_lifetime = timedelta(days=refresh_days)
        # Verified access tokens, by token: a client sends the same token with every request
        # until it expires, and checking the signature again costs more than the lookup.
        self._verified: OrderedDict[str, dict[str, Any]] = OrderedDict()

    @classmethod
    def from_settings(cls, settings: Settings) -> JWTCodec:
        """Check the secret's strength; without one, use a random per-process secret."""
        secret = settings.CABINET_JWT_SECRET
        if secret is None:
            log.warning(
                "CABINET_JWT_SECRET is not set: using a random secret; cabinet tokens end with the process"
            )
            secret = secrets.token_urlsafe(48)
        elif len(secret.encode()) < MIN_SECRET_BYTES and settings.ENVIRONMENT != "development":
            raise WeakSecretError(
                f"CABINET_JWT_SECRET must be at least {MIN_SECRET_BYTES} bytes "
                f"(it is {len(secret.encode())}); only ENVIRONMENT=development accepts a shorter one"
            )
        return cls(secret, settings.CABINET_ACCESS_TOKEN_MINUTES, settings.CABINET_REFRESH_TOKEN_DAYS)

    def issue(self, subject: int | str, token_type: TokenType, **claims: Any) -> str:
        """A signed token for ``subject`` with ``sub``, ``type``, ``iat``, ``exp``, ``jti`` and ``claims``."""
        now = datetime.now(UTC)
        lifetime = self.access_lifetime if token_type == "access" else self.refresh_lifetime  # noqa: S105
        payload = {
            **claims,
            "sub": str(subject),
            "type": token_type,
            "iat": now,
            "exp": now + lifetime,
            "jti": uuid.uuid4().hex,
        }
        return jwt.encode(payload, self.secret, algorithm=ALGORITHM)

    def access_token(self, subject: int | str, **claims: Any) -> str:
        return self.issue(subject, "access", **claims)

    def refresh_token(self, subject: int | str, **claims: Any) -> str:
        return self.issue(subject, "refresh", **claims)

    def verify(self, token: str, expected_type: TokenType) -> dict[str, Any]:
        """The claims of a valid token of ``expected_type``; :class:`TokenError` otherwise.

        A verified access token is remembered (at most ``VERIFIED_CACHE_SIZE``, least recently
        used dropped first) until its ``exp``: access tokens cannot be revoked, so nothing but
        time changes the answer. Other types are checked every time.
        """
        if expected_type == "access":
            known = self._verified.get(token)
            if known is not None and known["exp"] > time.time():
                self._verified.move_to_end(token)
                return dict(known)
        claims = self._decode(token, expected_type)
        if expected_type == "access" and isinstance(claims.get("exp"), int | float):
            self._verified[token] = claims
            if len(self._verified) > VERIFIED_CACHE_SIZE:
                self._verified.popitem(last=False)
        return dict(claims)

    def _decode(self, token: str, expected_type: TokenType) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self.secret,
                algorithms=[ALGORITHM],
                options={"require": ["exp", "sub", "type"]},
            )
        except jwt.PyJWTError as exc:
            raise TokenError(str(exc)) from None
        if claims.get("type") != expected_type:
            raise TokenError(f"expected a {expected_type} token, got {claims.get('type')!r}")
        return claims

"""API token rules: hashing, the lifecycle, and request authentication.

Authentication is on every Web API request, so it avoids the database where it safely can:
a verified token is trusted from memory for ``TOKEN_CACHE_SECONDS`` (dropped at once when
the token changes, on every instance through the bus), and ``last_used_at`` is written in
the background at most once per ``TOKEN_USAGE_WRITE_SECONDS`` per token.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import HTTPConnection

from subsvc.api.errors import HTTPError
from subsvc.auth.principal import Principal
from subsvc.bus import Bus
from subsvc.db import Database, utcnow
from subsvc.settings import Settings
from subsvc.tokens.models import ApiToken

PREFIX_LENGTH = 8
INVALIDATE_CHANNEL = "tokens.invalidate"
BOOTSTRAP_DESCRIPTION = "Создан автоматически при миграции"
log = logging.getLogger("subsvc.tokens")


def hash_token(token: str, hmac_secret: str | None) -> str:
    """SHA-256 of the token, or HMAC-SHA256 with the secret when one is configured (hex)."""
    if hmac_secret:
        return hmac.new(hmac_secret.encode(), token.encode(), hashlib.sha256).hexdigest()
    return hashlib.sha256(token.encode()).hexdigest()


def generate_token() -> str:
    """A new plain token: 48 random bytes, URL-safe base64 (64 characters)."""
    return secrets.token_urlsafe(48)


def presented_token(connection: HTTPConnection) -> str | None:
    """The credential of a request: ``X-API-Key``, else ``Authorization: Bearer``.

    Reads the raw ASGI headers (names arrive lower-cased): this runs on every request.
    """
    api_key: bytes | None = None
    authorization: bytes | None = None
    for name, value in connection.scope["headers"]:
        if name == b"x-api-key":
            api_key = value
            break
        if name == b"authorization":
            authorization = value
    if api_key is not None:
        return api_key.decode("latin-1").strip()
    if authorization is None:
        return None
    scheme, _, credentials = authorization.decode("latin-1").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else None


async def create_token(
    session: AsyncSession,
    settings: Settings,
    name: str,
    *,
    description: str | None = None,
    expires_at: datetime | None = None,
    created_by: str | None = None,
) -> tuple[ApiToken, str]:
    """Store a new token; returns the record and the plain token (never stored)."""
    plain = generate_token()
    token = ApiToken(
        name=name,
        token_hash=hash_token(plain, settings.WEB_API_TOKEN_HMAC_SECRET),
        token_prefix=plain[:PREFIX_LENGTH],
        description=description,
        expires_at=expires_at,
        created_by=created_by,
    )
    session.add(token)
    await session.flush()
    return token, plain


async def list_tokens(session: AsyncSession) -> list[ApiToken]:
    result = await session.exec(
        select(ApiToken).order_by(col(ApiToken.created_at).desc(), col(ApiToken.id).desc())
    )
    return list(result.all())


async def get_token(session: AsyncSession, token_id: int) -> ApiToken:
    token = await session.get(ApiToken, token_id)
    if token is None:
        raise HTTPError(404, "Token not found")
    return token


async def set_active(session: AsyncSession, token_id: int, active: bool) -> ApiToken:
    token = await get_token(session, token_id)
    token.is_active = active
    token.updated_at = utcnow()
    await session.flush()
    return token


async def delete_token(session: AsyncSession, token_id: int) -> None:
    await session.delete(await get_token(session, token_id))
    await session.flush()


async def ensure_bootstrap(session: AsyncSession, settings: Settings) -> ApiToken | None:
    """Make sure the ``WEB_API_DEFAULT_TOKEN`` row exists, is active and has its name."""
    plain = settings.WEB_API_DEFAULT_TOKEN
    if not plain:
        return None
    digest = hash_token(plain, settings.WEB_API_TOKEN_HMAC_SECRET)
    query = select(ApiToken).where(ApiToken.token_hash == digest)
    token = (await session.exec(query)).first()
    if token is None:
        token = ApiToken(
            name=settings.WEB_API_DEFAULT_TOKEN_NAME,
            token_hash=digest,
            token_prefix=plain[:PREFIX_LENGTH],
            description=BOOTSTRAP_DESCRIPTION,
            created_by="migration",
        )
        try:
            async with session.begin_nested():
                session.add(token)
        except IntegrityError:  # another process (or request) inserted it at the same moment
            token = (await session.exec(query)).one()
    elif not token.is_active or token.name != settings.WEB_API_DEFAULT_TOKEN_NAME:
        token.is_active = True
        token.name = settings.WEB_API_DEFAULT_TOKEN_NAME
        token.updated_at = utcnow()
    await session.flush()
    return token


@dataclass(frozen=True)
class _Verified:
    principal: Principal
    expires_at: datetime | None
    trusted_until: float


class TokenAuthenticator:
    """Verifies ``X-API-Key`` credentials against the token table, with a short cache."""

    def __init__(self, settings: Settings, db: Database, bus: Bus) -> None:
        self.settings = settings
        self.db = db
        self.bus = bus
        self.cache: dict[str, _Verified] = {}
        self.last_usage_write: dict[int, float] = {}
        self.pending: set[asyncio.Task[None]] = set()
        bus.subscribe(INVALIDATE_CHANNEL, self._on_invalidate)

    async def authenticate(self, connection: HTTPConnection) -> Principal:
        plain = presented_token(connection)
        if plain is None:
            raise HTTPError(401, "Missing API key")
        if not plain:
            raise HTTPError(401, "Invalid or expired API key")
        digest = hash_token(plain, self.settings.WEB_API_TOKEN_HMAC_SECRET)
        now = time.monotonic()
        verified = self.cache.get(digest)
        if verified is None or verified.trusted_until < now:
            verified = await self._verify(plain, digest, now)
        elif verified.expires_at is not None and verified.expires_at <= utcnow():
            self.cache.pop(digest, None)
            raise HTTPError(401, "Invalid or expired API key")
        self._record_usage(verified.principal.id, connection, now)
        return verified.principal

    async def _verify(self, plain: str, digest: str, now: float) -> _Verified:
        async with self.db.session() as session:
            token = await self._find(session, plain, digest)
            if token is None and self._is_bootstrap(plain):
                token = await ensure_bootstrap(session, self.settings)
            await session.commit()
        if token is None or not token.usable(utcnow()):
            self.cache.pop(digest, None)
            raise HTTPError(401, "Invalid or expired API key")
        assert token.id is not None
        verified = _Verified(
            Principal(kind="api_token", id=token.id, name=token.name),
            token.expires_at,
            now + self.settings.TOKEN_CACHE_SECONDS,
        )
        if self.settings.TOKEN_CACHE_SECONDS > 0:
            self.cache[digest] = verified
        return verified

    async def _find(self, session: AsyncSession, plain: str, digest: str) -> ApiToken | None:
        query = select(ApiToken).where(ApiToken.token_hash == digest)
        token: ApiToken | None = (await session.exec(query)).first()
        if token is None and self.settings.WEB_API_TOKEN_HMAC_SECRET:
            legacy = hashlib.sha256(plain.encode()).hexdigest()
            query = select(ApiToken).where(ApiToken.token_hash == legacy)
            token = (await session.exec(query)).first()
            if token is not None:
                token.token_hash = digest  # upgrade the stored form in place
        return token

    def _is_bootstrap(self, plain: str) -> bool:
        default = self.settings.WEB_API_DEFAULT_TOKEN
        return bool(default) and hmac.compare_digest(plain.encode(), str(default).encode())

    def _record_usage(self, token_id: int, connection: HTTPConnection, now: float) -> None:
        """Schedule a ``last_used_at`` write unless one was made for this token recently."""
        last = self.last_usage_write.get(token_id)
        if last is not None and now - last < self.settings.TOKEN_USAGE_WRITE_SECONDS:
            return
        self.last_usage_write[token_id] = now
        ip = connection.client.host if connection.client else None
        task = asyncio.create_task(self._write_usage(token_id, ip))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _write_usage(self, token_id: int, ip: str | None) -> None:
        try:
            async with self.db.session() as session:
                await session.exec(
                    update(ApiToken)
                    .where(col(ApiToken.id) == token_id)
                    .values(last_used_at=utcnow(), last_used_ip=ip)
                )
                await session.commit()
        except Exception:
            self.last_usage_write.pop(token_id, None)  # try again on the next request
            log.warning("could not record use of API token %s", token_id, exc_info=True)

    async def invalidate(self, token_id: int) -> None:
        """Forget a changed token here and on every other instance."""
        await self.bus.publish(INVALIDATE_CHANNEL, str(token_id))
        if type(self.bus) is not Bus:
            self._drop(token_id)  # the Redis bus also echoes it back; drop now for this instance

    def _on_invalidate(self, message: str) -> None:
        self._drop(int(message))

    def _drop(self, token_id: int) -> None:
        for digest, verified in list(self.cache.items()):
            if verified.principal.id == token_id:
                del self.cache[digest]

    async def drain(self) -> None:
        """Wait for scheduled usage writes (at shutdown and in tests)."""
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)

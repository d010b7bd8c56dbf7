"""Rate limits per client IP for the endpoints that must not be hammered (logins, codes).

    await rate_limit(request, "messenger_login", "10/minute")

counts one hit of ``action`` for the request's client IP and raises 429
``{"detail": "Too many requests"}`` with ``Retry-After`` once the limit is passed. Limits
are strings of the `limits` library (``10/minute``, ``5 per 15 minutes``); the
``RATE_LIMITS`` setting overrides an action's default, ``RATE_LIMIT_ENABLED=false`` turns
every limit off. Counters live in memory (per process) or, with ``REDIS_URL``, in Redis,
shared by every instance (moving window). When Redis does not answer the request is refused
with 503: a login limit fails closed.

:func:`client_ip` is the socket peer, or, when the peer is a trusted proxy
(``TRUSTED_PROXIES``), the client the proxies name in ``X-Forwarded-For`` (the right-most
address that is not itself a trusted proxy) or ``X-Real-IP``.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from subsvc.api.errors import HTTPError
from subsvc.settings import Settings

TOO_MANY_REQUESTS = "Too many requests"
LIMITER_UNAVAILABLE = "Service temporarily unavailable. Please try again later."
NO_CLIENT_IP = "Unable to determine client IP"
RATE_LIMITED = {429: TOO_MANY_REQUESTS}
"""What :func:`rate_limit` adds to an endpoint's answers: spread it into its ``responses``."""
REDIS_TIMEOUT_SECONDS = 1.0
log = logging.getLogger("subsvc.ratelimit")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _networks(entries: list[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@dataclass
class RateLimiter:
    """The limiter of one app: its storage, the overrides and the trusted proxies."""

    storage: Storage
    enabled: bool = True
    overrides: dict[str, str] = field(default_factory=dict)
    trusted: tuple[Network, ...] = ()
    _items: dict[str, list[RateLimitItem]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.strategy = MovingWindowRateLimiter(self.storage)

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimiter:
        storage: Storage
        if settings.REDIS_URL:
            storage = RedisStorage(
                "async+" + settings.REDIS_URL,
                implementation="redispy",
                key_prefix="subsvc:ratelimit",
                wrap_exceptions=True,
                socket_timeout=REDIS_TIMEOUT_SECONDS,
                socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
            )
        else:
            storage = MemoryStorage()
        overrides = {}
        for entry in settings.RATE_LIMITS:
            action, _, limit = entry.partition("=")
            overrides[action.strip()] = limit.strip()
        return cls(storage, settings.RATE_LIMIT_ENABLED, overrides, _networks(settings.TRUSTED_PROXIES))

    def is_trusted(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(address in network for network in self.trusted)

    def client_ip(self, connection: HTTPConnection) -> str | None:
        """The client's address (see the module docs); ``None`` when there is no peer."""
        if connection.client is None or not connection.client.host:
            return None
        peer = connection.client.host
        peer_ip = _parse_ip(peer)
        if peer_ip is None or not self.trusted or not self.is_trusted(peer_ip):
            return str(peer_ip) if peer_ip is not None else peer
        candidate = peer_ip
        forwarded = connection.headers.get("x-forwarded-for")
        if forwarded:
            for hop in reversed(forwarded.split(",")):
                address = _parse_ip(hop)
                if address is None:
                    break  # a forged or broken entry: keep the last hop we could read
                candidate = address
                if not self.is_trusted(address):
                    break
        else:
            real = _parse_ip(connection.headers.get("x-real-ip", ""))
            candidate = real or candidate
        return str(candidate)

    def items(self, action: str, default: str) -> list[RateLimitItem]:
        """The parsed limits of ``action`` (its override, else ``default``), cached."""
        items = self._items.get(action)
        if items is None:
            items = self._items[action] = parse_many(self.overrides.get(action, default))
        return items

    async def hit(self, action: str, default: str, key: str) -> int | None:
        """Count one hit of ``action`` for ``key``: ``None`` when allowed, else the seconds
        until the limit lets the key through again. Raises 503 when the storage is down."""
        if not self.enabled:
            return None
        retry_after: int | None = None
        try:
            for item in self.items(action, default):
                if await self.strategy.hit(item, action, key):
                    continue
                stats = await self.strategy.get_window_stats(item, action, key)
                wait = max(1, math.ceil(stats.reset_time - time.time()))
                retry_after = max(retry_after or 0, wait)
        except Exception as exc:
            if not _is_storage_error(exc):
                raise
            log.warning("rate limit storage unavailable; refusing %s", action, exc_info=True)
            raise HTTPError(503, LIMITER_UNAVAILABLE, {"Retry-After": "5"}) from None
        return retry_after

    async def reset(self) -> None:
        """Forget every counter (tests, operators)."""
        await self.storage.reset()

    async def aclose(self) -> None:
        """Release the storage's connections (Redis) and its expiry task (memory)."""
        timer: Any = getattr(self.storage, "timer", None)
        if timer is not None and not timer.done():
            timer.cancel()
        bridge: Any = getattr(self.storage, "bridge", None)
        client = getattr(bridge, "storage", None)
        if client is not None and hasattr(client, "aclose"):
            await client.aclose()


def _is_storage_error(exc: Exception) -> bool:
    from limits.errors import StorageError

    return isinstance(exc, StorageError | ConnectionError | TimeoutError | OSError)


def rate_limiter(app: Starlette) -> RateLimiter:
    """The app's limiter, made from its settings on first use."""
    state: Any = app.state
    limiter: RateLimiter | None = getattr(state, "rate_limiter", None)
    if limiter is None:
        limiter = state.rate_limiter = RateLimiter.from_settings(state.settings)
    return limiter


async def close_rate_limiter(app: Starlette) -> None:
    """Release the app's limiter, if it was made (call when the app stops)."""
    state: Any = app.state
    limiter: RateLimiter | None = getattr(state, "rate_limiter", None)
    if limiter is not None:
        state.rate_limiter = None
        await limiter.aclose()


def client_ip(connection: HTTPConnection) -> str | None:
    """The request's client IP: the peer, or what trusted proxies say (``TRUSTED_PROXIES``)."""
    return rate_limiter(connection.app).client_ip(connection)


async def rate_limit(connection: HTTPConnection, action: str, limit: str) -> None:
    """Count a hit of ``action`` for the client IP; 429 with ``Retry-After`` past ``limit``
    (or the ``RATE_LIMITS`` override of ``action``). 400 when the client has no address."""
    limiter = rate_limiter(connection.app)
    if not limiter.enabled:
        return
    address = limiter.client_ip(connection)
    if address is None:
        raise HTTPError(400, NO_CLIENT_IP)
    retry_after = await limiter.hit(action, limit, address)
    if retry_after is not None:
        raise HTTPError(429, TOO_MANY_REQUESTS, {"Retry-After": str(retry_after)})

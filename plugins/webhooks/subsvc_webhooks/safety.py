"""Keeping webhooks away from internal services: non-public target addresses are refused.

Checked twice: when a URL is saved (a literal address, or what its name resolves to now) and
on every connection (the name is resolved, every address checked, and the connection made
to a checked address), so a name re-pointed at an internal address after it was saved
(DNS rebinding) is refused too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

import httpcore2
import httpx2
from httpcore2 import AsyncNetworkStream, ConnectError
from httpcore2._backends.auto import AutoBackend

RESOLVE_SECONDS = 2.0
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class TargetRefused(Exception):
    """The target resolves to an address webhooks may not reach (not retried)."""


def is_refused(address: IPAddress) -> bool:
    """Private, loopback, link-local, multicast, reserved and other non-global addresses."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


def refusal(host: str, addresses: Iterable[str]) -> str | None:
    """The reason to refuse ``host`` given its addresses, or ``None``."""
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if is_refused(address):
            shown = host if host == text else f"{host} ({text})"
            return f"URL targets a private or loopback address: {shown}"
    return None


async def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (a literal address resolves to itself)."""
    try:
        return [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def check_url(url: str) -> str | None:
    """Why a URL may not be saved (its host is or resolves to a refused address), or ``None``.

    A name that does not resolve now is accepted: the check on each connection still holds.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = await asyncio.wait_for(resolve(host, port), timeout=RESOLVE_SECONDS)
    except (OSError, TimeoutError, UnicodeError):
        return None
    return refusal(host, addresses)


class GuardedBackend(AutoBackend):
    """httpcore network backend that resolves the host itself, refuses it when any of its
    addresses is non-public, and connects to the checked address (TLS still verifies the name)."""

    async def connect_tcp(self, host: str, port: int, *args: object, **kwargs: object) -> AsyncNetworkStream:
        try:
            addresses = await resolve(host, port)
        except (OSError, UnicodeError) as exc:
            raise ConnectError(f"cannot resolve {host}: {exc}") from exc
        reason = refusal(host, addresses)
        if reason is not None:
            raise TargetRefused(f"{reason} (WEBHOOK_BLOCK_PRIVATE_TARGETS)")
        return await super().connect_tcp(addresses[0], port, *args, **kwargs)  # type: ignore[arg-type]


def transport(limits: httpx2.Limits, *, guarded: bool) -> httpx2.AsyncHTTPTransport:
    """httpx's transport; ``guarded``: its connection pool uses :class:`GuardedBackend`."""
    plain = httpx2.AsyncHTTPTransport(limits=limits, trust_env=False)
    if guarded:
        # httpx takes no network backend: give the transport a pool built with ours.
        plain._pool = httpcore2.AsyncConnectionPool(
            ssl_context=httpx2.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedBackend(),
        )
    return plain

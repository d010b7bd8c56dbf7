"""The HTTP side of a provider plugin: one client per provider API and app, JSON in and out,
every failure a :class:`~subsvc_payments.providers.ProviderError`.
A provider that writes amounts as JSON numbers is called with ``exact_numbers=True``: a
:class:`~decimal.Decimal` in the body is written as a number (:func:`exact_json`), and a number
with a fraction in the answer is read as one, never as a float.

``provider_http(app, "yookassa", settings.YOOKASSA_API_URL, timeout)`` answers the app's
client for that API (opened on first use, closed when the app stops), so a provider object
can be built per request from its settings and still reuse connections.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from decimal import Decimal
from typing import Any
from weakref import WeakKeyDictionary

import httpx2
from starlette.applications import Starlette

from subsvc_payments.providers import ProviderError

log = logging.getLogger("subsvc.payments")
EXCERPT = 300


class ProviderRefused(ProviderError):
    """The provider answered a 4xx: ``status`` and what it said (``body``, parsed if JSON)."""

    def __init__(self, message: str, status: int, body: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class ProviderHttp:
    """A provider's JSON API at ``base_url``: :meth:`call` answers the parsed body of a 2xx or
    3xx; a 4xx raises :class:`ProviderRefused`; no connection, no answer within ``timeout``
    seconds, a 5xx or a body that is not JSON raise :class:`ProviderError`."""

    def __init__(self, name: str, base_url: str, timeout: float) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self._http = httpx2.AsyncClient(
            timeout=timeout, limits=httpx2.Limits(max_connections=50, max_keepalive_connections=10)
        )

    async def call(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        auth: tuple[str, str] | None = None,
        exact_numbers: bool = False,
    ) -> Any:
        """``method`` ``base_url + path`` with a JSON body (if any); the answer's JSON (with
        ``exact_numbers``, decimals both ways: see the module)."""
        where = f"{self.name} {method} {path}"
        content = None
        if exact_numbers and json_body is not None:
            content, json_body = exact_json(json_body).encode(), None
            headers = {**(headers or {}), "Content-Type": "application/json"}
        try:
            response = await self._http.request(
                method,
                self.base_url + path,
                content=content,
                json=json_body,
                params=params,
                headers=headers,
                auth=auth,
            )
        except httpx2.InvalidURL as exc:
            raise ProviderError(f"{where}: the configured API URL is unusable ({exc})") from exc
        except httpx2.TimeoutException as exc:
            raise ProviderError(f"{where}: no answer in time") from exc
        except httpx2.TransportError as exc:
            raise ProviderError(f"{where}: unreachable ({type(exc).__name__})") from exc
        text = response.text
        try:
            body = json.loads(text, parse_float=Decimal if exact_numbers else None) if text.strip() else None
        except ValueError:
            body = None
            if response.status_code < 500:
                raise ProviderError(f"{where}: answered {response.status_code} without JSON") from None
        if response.status_code >= 500:
            raise ProviderError(f"{where}: answered {response.status_code}")
        if response.status_code >= 400:
            log.warning("%s refused: %s %s", where, response.status_code, text[:EXCERPT])
            raise ProviderRefused(f"{where}: refused ({response.status_code})", response.status_code, body)
        return body

    async def aclose(self) -> None:
        await self._http.aclose()


def exact_json(value: Any) -> str:
    """``value`` as JSON, each :class:`~decimal.Decimal` written as a number with its own
    digits (``Decimal("150.50")`` -> ``150.50``); :class:`ValueError` for one not finite."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"JSON has no number {value}")
        return format(value, "f")
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {exact_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(exact_json(item) for item in value) + "]"
    return json.dumps(value)


_clients: WeakKeyDictionary[Starlette, dict[tuple[str, str, float], ProviderHttp]] = WeakKeyDictionary()


def provider_http(app: Starlette, name: str, base_url: str, timeout: float) -> ProviderHttp:
    """The app's client of provider ``name`` at ``base_url`` (one per app, URL and timeout)."""
    clients = _clients.setdefault(app, {})
    key = (name, base_url, timeout)
    if key not in clients:
        clients[key] = ProviderHttp(name, base_url, timeout)
    return clients[key]


async def close_clients(app: Starlette) -> None:
    """Close the app's provider clients (at shutdown)."""
    for client in _clients.pop(app, {}).values():
        await client.aclose()

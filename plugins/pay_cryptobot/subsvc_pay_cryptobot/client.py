"""The Crypto Pay API as this plugin calls it: ``<url>/<method>`` with the app's token in the
header ``Crypto-Pay-API-Token``; every answer ``{"ok": true, "result": ...}`` or
``{"ok": false, "error": {"code", "name"}}``. A refusal, an answer without ``ok``, or no
answer is a :class:`~subsvc_payments.api.ProviderError` (answered 502)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subsvc_payments.api import ProviderError, ProviderHttp, ProviderRefused

AUTH_HEADER = "Crypto-Pay-API-Token"


def _error_name(body: Any) -> str:
    """What an ``{"ok": false}`` answer names (``UNAUTHORIZED``, ...), else ``unknown``."""
    error = body.get("error") if isinstance(body, dict) else None
    name = error.get("name") if isinstance(error, dict) else None
    return str(name) if name else "unknown"


class CryptoPay:
    """One app's Crypto Pay API: :meth:`call` answers a method's ``result``."""

    def __init__(self, http: ProviderHttp, token: str) -> None:
        self._http = http
        self._headers = {AUTH_HEADER: token}

    async def call(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """``POST <url>/<method>`` with ``params`` as JSON; the ``result`` of an ``ok`` answer."""
        try:
            body = await self._http.call(
                "POST", f"/{method}", json_body=dict(params or {}), headers=self._headers
            )
        except ProviderRefused as refused:
            message = f"CryptoBot refused {method}: {refused.status} {_error_name(refused.body)}"
            raise ProviderRefused(message, refused.status, refused.body) from refused
        if not isinstance(body, dict) or body.get("ok") is not True or "result" not in body:
            raise ProviderError(f"CryptoBot answered {method} without a result: {_error_name(body)}")
        return body["result"]

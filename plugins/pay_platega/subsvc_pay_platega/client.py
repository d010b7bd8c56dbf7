"""Platega's API as this plugin calls it: the merchant headers on every call, amounts exact
both ways, every failure a :class:`ProviderError` (502)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from subsvc_payments.api import ProviderError, provider_http

from subsvc_pay_platega.protocol import NAME
from subsvc_pay_platega.settings import PlategaSettings


class PlategaClient:
    """``POST /transaction/process`` and ``GET /transaction/{id}`` with the app's client."""

    def __init__(self, app: Starlette, settings: PlategaSettings) -> None:
        self._http = provider_http(app, NAME, settings.PLATEGA_API_URL, settings.PLATEGA_TIMEOUT_SECONDS)
        self._headers = {
            "X-MerchantId": settings.PLATEGA_MERCHANT_ID or "",
            "X-Secret": settings.PLATEGA_SECRET or "",
            "Accept": "application/json",
        }

    async def process(self, body: Mapping[str, Any]) -> Mapping[str, Any]:
        """Create a transaction: Platega's answer."""
        answer = await self._http.call(
            "POST", "/transaction/process", json_body=body, headers=self._headers, exact_numbers=True
        )
        return _object(answer, "POST /transaction/process")

    async def transaction(self, transaction_id: str) -> Mapping[str, Any]:
        """A transaction as Platega knows it now."""
        path = f"/transaction/{quote(transaction_id, safe='')}"
        answer = await self._http.call("GET", path, headers=self._headers, exact_numbers=True)
        return _object(answer, f"GET {path}")


def _object(answer: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(answer, Mapping):
        raise ProviderError(f"{NAME} {where}: answered {type(answer).__name__}, not a JSON object")
    return answer

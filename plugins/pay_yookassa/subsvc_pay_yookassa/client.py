"""YooKassa's API v3 over HTTP: HTTP Basic auth (shop id : secret key), JSON both ways, an
``Idempotence-Key`` on every creation. Errors are ``{"type": "error", "id", "code",
"description"}``; a refusal becomes a :class:`ProviderError` saying YooKassa's code and text."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from subsvc_payments.api import ProviderError, ProviderRefused, provider_http

from subsvc_pay_yookassa.protocol import NAME
from subsvc_pay_yookassa.settings import YookassaSettings


def refusal(refused: ProviderRefused) -> str:
    """YooKassa's error as a message: ``401 invalid_credentials: <description>``."""
    body = refused.body if isinstance(refused.body, dict) else {}
    code = body.get("code") or "error"
    described = f": {body['description']}" if body.get("description") else ""
    parameter = f" (parameter {body['parameter']})" if body.get("parameter") else ""
    return f"{refused.status} {code}{described}{parameter}"


class YookassaApi:
    """The shop's calls: create a payment, read one."""

    def __init__(self, app: Starlette, settings: YookassaSettings) -> None:
        self.http = provider_http(app, NAME, settings.YOOKASSA_API_URL, settings.YOOKASSA_TIMEOUT_SECONDS)
        self.auth = settings.credentials

    async def create_payment(self, body: dict[str, Any], idempotence_key: str) -> Any:
        """``POST /payments``: a retry with the same key answers the same payment."""
        headers = {"Idempotence-Key": idempotence_key}
        try:
            return await self.http.call("POST", "/payments", json_body=body, headers=headers, auth=self.auth)
        except ProviderRefused as refused:
            raise ProviderError(f"YooKassa refused the payment: {refusal(refused)}") from refused

    async def get_payment(self, payment_id: str) -> Any | None:
        """``GET /payments/{id}``; ``None`` when YooKassa knows no such payment of this shop."""
        try:
            return await self.http.call("GET", f"/payments/{payment_id}", auth=self.auth)
        except ProviderRefused as refused:
            if refused.status == 404:
                return None
            raise ProviderError(
                f"YooKassa refused to report payment {payment_id}: {refusal(refused)}"
            ) from refused

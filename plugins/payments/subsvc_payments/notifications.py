"""A provider's notification endpoint, the same steps for every provider: the provider
verifies and reads the notification (:meth:`PaymentProvider.verify_notification`), then what
it says is applied in the request's transaction (:func:`apply_status`: credited once, however
often it is repeated).

The answers tell the provider whether to retry: 200 once the notification is processed, also
for one that says nothing to act on or names a payment we do not know (logged, so the
provider stops retrying); 400/401/403 for one that cannot be read or trusted (nothing
changes); 502 when the provider had to be asked and did not answer, 503 while the provider is
not configured or the database is down — the provider retries those later, nothing is lost.

A provider plugin serves its endpoint with ``Plugin(endpoints=[notification_endpoint(...)])``:
``POST /webhooks/payments/<provider>`` (tag ``webhooks``), or the path its setting names.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from subsvc.api import Router
from subsvc.db import utcnow
from subsvc.ratelimit import client_ip
from subsvc_payments.crediting import apply_status
from subsvc_payments.providers import IncomingNotification, NotificationRefused, provider_for
from subsvc_payments.records import PaymentNotFound

log = logging.getLogger("subsvc.payments")
NOT_CONFIGURED = "not_configured"
UNKNOWN_PAYMENT = "unknown_payment"
ANSWERS = {
    200: "Processed (credited once however often repeated), nothing to act on, or an unknown "
    "payment (logged)",
    400: "Not a notification the provider sends (unreadable)",
    401: "Not signed by the provider, or replayed outside its time window",
    403: "Sent from an address the provider does not use",
    502: "The provider, asked to confirm the notification, did not answer: it retries later",
    503: "The provider is not configured here, or the database is down: it retries later",
}


def _answer(status: int = 200, reason: str | None = None) -> JSONResponse:
    body = {"status": "ok" if status == 200 else "error"}
    return JSONResponse(body if reason is None else {**body, "reason": reason}, status_code=status)


async def receive_notification(request: Request, session: AsyncSession, provider_name: str) -> Response:
    """Verify a notification of ``provider_name`` and apply it in ``session``'s transaction
    (committed by the endpoint after this returns)."""
    provider = await provider_for(request.app, provider_name)
    if provider is None:
        log.warning("%s notification refused: the provider is not configured", provider_name)
        return _answer(503, NOT_CONFIGURED)
    incoming = IncomingNotification(
        headers={name.lower(): value for name, value in request.headers.items()},
        body=await request.body(),
        client_ip=client_ip(request),
    )
    try:
        notice = await provider.verify_notification(incoming)
    except NotificationRefused as refused:
        log.warning("%s notification from %s refused: %s", provider_name, incoming.client_ip, refused.reason)
        return _answer(refused.status, refused.reason)
    if notice is None:
        return _answer()
    try:
        await apply_status(request.app, session, provider.name, notice.provider_payment_id, notice.status)
    except PaymentNotFound:
        log.warning("%s notified an unknown payment %s", provider_name, notice.provider_payment_id)
        return _answer(200, UNKNOWN_PAYMENT)
    return _answer()


def refuse_stale(sent_at: datetime, max_age_seconds: float) -> None:
    """Refuse (401) a signed notification sent more than ``max_age_seconds`` ago, or that far
    in the future: a captured notification replayed later is not taken."""
    if abs(utcnow() - sent_at) > timedelta(seconds=max_age_seconds):
        raise NotificationRefused(401, "stale_notification")


NOTIFIED_BY: dict[str, str] = {}
"""The notification endpoints' operation names, and their providers."""


def notification_endpoint(provider: str, *, path_setting: str, provider_title: str) -> Router:
    """The public endpoint receiving ``provider``'s notifications, at
    ``/webhooks/payments/<provider>`` unless the plugin's setting ``path_setting`` names
    another path."""
    router = Router(area="web", tag="webhooks")
    name = f"{provider}_payment_notification"
    NOTIFIED_BY[name] = provider

    async def receive(request: Request, session: AsyncSession) -> Response:
        return await receive_notification(request, session, provider)

    receive.__doc__ = (
        f"Payment notifications of {provider_title}: verified the provider's way (no API key), "
        "applied once however often they are repeated."
    )
    router.post(
        f"/webhooks/payments/{provider}",
        public=True,
        path_setting=path_setting,
        name=name,
        summary=f"{provider_title} Payment Notification",
        responses=ANSWERS,
    )(receive)
    return router

"""Web API (X-API-Key), tag `webhooks`: the endpoints, their deliveries and the totals."""

from __future__ import annotations

from typing import Annotated, Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, RequestValidationError, Router, from_attributes
from subsvc.api.pagination import Limit, Offset, Page
from subsvc.services import services
from subsvc_webhooks import service
from subsvc_webhooks.delivery import blocks_private_targets
from subsvc_webhooks.models import ANY_EVENT, Webhook
from subsvc_webhooks.safety import check_url
from subsvc_webhooks.schemas import (
    WebhookCreateRequest,
    WebhookDeliveryResponse,
    WebhookResponse,
    WebhookStatsResponse,
    WebhookUpdateRequest,
)

router = Router(area="web", tag="webhooks")
READ = "webhooks:read"
MANAGE = "webhooks:manage"
NOT_FOUND = {404: service.WEBHOOK_NOT_FOUND}  # answered for service.WebhookNotFound (plugin.py)


def to_response(webhook: Webhook) -> WebhookResponse:
    """The webhook as answered: its fields, and whether it has a secret (never the secret)."""
    return from_attributes(WebhookResponse, webhook, has_secret=bool(webhook.secret))


def _invalid(field: str, value: Any, message: str) -> dict[str, Any]:
    """A 422 item in FastAPI's shape for a body field a validator refused."""
    return {
        "type": "value_error",
        "loc": ["body", field],
        "msg": f"Value error, {message}",
        "input": value,
        "ctx": {"error": message},
    }


async def _check(request: Request, *, url: str | None, event_type: str | None = None) -> None:
    """The checks that need the app: a declared event type, a target the guard allows
    (``WEBHOOK_BLOCK_PRIVATE_TARGETS``). Every failure is reported at once (422)."""
    errors = []
    if (
        event_type is not None
        and event_type != ANY_EVENT
        and event_type not in services(request.app).events.catalogue
    ):
        message = f"unknown event type {event_type!r}: use one of GET /events/types, or '*' for every event"
        errors.append(_invalid("event_type", event_type, message))
    if url is not None and blocks_private_targets(request.app):
        reason = await check_url(url)
        if reason is not None:
            errors.append(_invalid("url", url, f"{reason} (WEBHOOK_BLOCK_PRIVATE_TARGETS)"))
    if errors:
        raise RequestValidationError(errors)


@router.get("/webhooks", permission=READ)
async def list_webhooks(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    event_type: str | None = None,
    is_active: bool | None = None,
) -> Page[WebhookResponse]:
    """Webhooks, newest first, filtered by event type (exact) and activity."""
    filters = service.WebhookFilter(event_type=event_type, is_active=is_active)
    total, rows = await service.list_webhooks(session, filters, limit, offset)
    return Page[WebhookResponse](
        items=[to_response(w) for w in rows], total=total, limit=limit, offset=offset
    )


@router.post("/webhooks", status_code=201, permission=MANAGE)
async def create_webhook(
    request: Request, session: AsyncSession, payload: WebhookCreateRequest
) -> WebhookResponse:
    """Create an active webhook for one event type (`GET /events/types`) or `*` (every event).

    The URL must be http or https; with `WEBHOOK_BLOCK_PRIVATE_TARGETS` a URL that is or
    resolves to a private or loopback address is refused (422). Events published from now
    on are delivered to it.
    """
    await _check(request, url=payload.url, event_type=payload.event_type)
    webhook = await service.create_webhook(session, payload.model_dump())
    return to_response(webhook)


@router.get("/webhooks/stats", permission=READ)
async def webhook_stats(session: AsyncSession) -> WebhookStatsResponse:
    """Webhook totals and delivery attempts made (pending deliveries are not counted)."""
    return WebhookStatsResponse.model_validate(await service.stats(session), from_attributes=True)


@router.get("/webhooks/{webhook_id}", permission=READ, responses=NOT_FOUND)
async def get_webhook(session: AsyncSession, webhook_id: int) -> WebhookResponse:
    """One webhook (the secret is never returned; `has_secret` says whether one is set)."""
    return to_response(await service.get_webhook(session, webhook_id))


@router.patch("/webhooks/{webhook_id}", permission=MANAGE, responses=NOT_FOUND)
async def update_webhook(
    request: Request, session: AsyncSession, webhook_id: int, payload: WebhookUpdateRequest
) -> WebhookResponse:
    """Change name, url, secret, description or is_active; absent or null fields stay as they
    are, an empty `secret` removes it. The event type cannot change.

    Deactivating pauses the webhook's pending deliveries; activating it again (which also
    clears a deactivation for failing) sends them.
    """
    await service.get_webhook(session, webhook_id)  # 404 before any other check
    await _check(request, url=payload.url)
    webhook, reactivated = await service.update_webhook(
        session, webhook_id, payload.model_dump(exclude_none=True)
    )
    if reactivated:
        services(request.app).jobs.enqueue_after_commit(session, service.DELIVER_JOB)
    return to_response(webhook)


@router.delete("/webhooks/{webhook_id}", status_code=204, permission=MANAGE, responses=NOT_FOUND)
async def delete_webhook(session: AsyncSession, webhook_id: int) -> None:
    """Delete the webhook and its deliveries (pending ones are not sent)."""
    await service.delete_webhook(session, webhook_id)


@router.get(
    "/webhooks/{webhook_id}/deliveries",
    summary="List Webhook Deliveries",
    permission=READ,
    responses=NOT_FOUND,
)
async def list_deliveries(
    session: AsyncSession,
    webhook_id: int,
    limit: Limit = 50,
    offset: Offset = 0,
    status: Annotated[str | None, Query(description="`pending`, `success` or `failed`.")] = None,
) -> Page[WebhookDeliveryResponse]:
    """The webhook's delivery attempts, newest first; each retry is an attempt of its own."""
    total, rows = await service.list_deliveries(session, webhook_id, status, limit, offset)
    items = [WebhookDeliveryResponse.model_validate(row) for row in rows]
    return Page[WebhookDeliveryResponse](items=items, total=total, limit=limit, offset=offset)

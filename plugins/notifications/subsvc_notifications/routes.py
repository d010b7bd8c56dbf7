"""Web API (X-API-Key), tag `notifications`: `POST` and `GET /notifications/subscriptions`.
An unknown reference (:class:`~subsvc_notifications.service.ReferenceNotFound`) is answered
404 as ``plugin.py`` declares it."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Limit, Offset, Page, Router
from subsvc.services import services
from subsvc_notifications import service
from subsvc_notifications.schemas import LenientDatetime, SubscriptionEventCreate, SubscriptionEventResponse

router = Router(area="web", tag="notifications")


@router.post(
    "/notifications/subscriptions",
    status_code=201,
    responses={404: "User not found, Subscription not found or Transaction not found"},
)
async def receive_subscription_event(
    request: Request, session: AsyncSession, payload: SubscriptionEventCreate
) -> SubscriptionEventResponse:
    """Store an event the bot reports (activation, purchase, renewal, balance top-up, promo-code
    activation, referral link visit, promo group change) and answer the stored record.

    `user_id`, `subscription_id` and `transaction_id` are internal ids and must exist (404
    otherwise; nothing is stored). `subscription_event.recorded` is published with the record.
    """
    return await service.record_event(session, services(request.app).events, payload)


@router.get("/notifications/subscriptions")
async def list_subscription_event_logs(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    event_type: list[str] | None = None,
    user_id: int | None = None,
    date_from: LenientDatetime | None = None,
    date_to: LenientDatetime | None = None,
) -> Page[SubscriptionEventResponse]:
    """The event log, newest `occurred_at` first. `event_type` may be repeated (any of them
    matches); `user_id` is an internal id; `date_from` and `date_to` bound `occurred_at`
    (inclusive; a time without an offset is UTC)."""
    filters = service.EventFilter(
        event_types=tuple(event_type) if event_type is not None else None,
        user_id=user_id,
        date_from=date_from,
        date_to=date_to,
    )
    total, items = await service.list_events(session, filters, limit, offset)
    return Page[SubscriptionEventResponse](items=items, total=total, limit=limit, offset=offset)

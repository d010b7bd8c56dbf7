"""The rules of webhooks: endpoints, their pending deliveries (written with the event), totals."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy import FromClause, Insert, Integer, String, bindparam, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import UTCDateTime, utcnow
from subsvc_webhooks.models import (
    ANY_EVENT,
    ATTEMPT_COLUMNS,
    DELIVERIES,
    FAILED,
    PENDING,
    SUCCESS,
    WEBHOOKS,
    Webhook,
    WebhookDelivery,
)

DELIVER_JOB = "webhooks.deliver"
WEBHOOK_NOT_FOUND = "Webhook not found"


class WebhookNotFound(LookupError):
    """No webhook has this id."""


def deliveries_from(events: FromClause) -> Insert:
    """One pending delivery per active webhook of each event's type (or of ``*``), in the
    order of the events: ``INSERT ... SELECT`` from the commit's written events (see
    :class:`~subsvc.events.EventWrite`), so their payloads are not sent to the database again.
    The delivery key is the commit's random ``webhooks_key_prefix``, the event id and the
    webhook id."""
    webhooks, deliveries = WEBHOOKS, DELIVERIES
    now = bindparam("webhooks_now", type_=UTCDateTime)
    key = (
        bindparam("webhooks_key_prefix", type_=String)
        + sa.cast(events.c.id, String)
        + sa.literal("-", String)
        + sa.cast(webhooks.c.id, String)
    )
    selected = (
        sa.select(
            webhooks.c.id,
            events.c.id,
            key,
            events.c.event_type,
            events.c.payload,
            sa.literal(PENDING, String),
            sa.literal(1, Integer),
            now,
            now,
        )
        .join_from(webhooks, events, webhooks.c.event_type.in_([events.c.event_type, ANY_EVENT]))
        .where(webhooks.c.is_active.is_(True))
        .order_by(events.c.id, webhooks.c.id)
    )
    return sa.insert(deliveries).from_select(list(ATTEMPT_COLUMNS), selected)


def delivery_parameters() -> dict[str, Any]:
    """The values of :func:`deliveries_from`'s parameters for one commit."""
    return {"webhooks_now": utcnow(), "webhooks_key_prefix": f"{uuid.uuid4().hex[:16]}-"}


async def get_webhook(session: AsyncSession, webhook_id: int) -> Webhook:
    webhook = await session.get(Webhook, webhook_id)
    if webhook is None:
        raise WebhookNotFound(webhook_id)
    return webhook


async def create_webhook(session: AsyncSession, values: dict[str, Any]) -> Webhook:
    now = utcnow()
    webhook = Webhook(**values, is_active=True, created_at=now, updated_at=now)
    if not webhook.secret:
        webhook.secret = None
    session.add(webhook)
    await session.flush()
    return webhook


async def update_webhook(
    session: AsyncSession, webhook_id: int, changes: dict[str, Any]
) -> tuple[Webhook, bool]:
    """Apply the non-null ``changes`` (an empty secret removes it). Returns the webhook and
    whether it was reactivated (its paused deliveries are due again)."""
    webhook = await get_webhook(session, webhook_id)
    reactivated = changes.get("is_active") is True and not webhook.is_active
    for name, value in changes.items():
        if value is not None:
            setattr(webhook, name, value)
    if "secret" in changes and changes["secret"] == "":
        webhook.secret = None
    if reactivated:
        webhook.failing_since = None
        webhook.deactivated_at = None
        webhook.deactivation_reason = None
    webhook.updated_at = utcnow()
    session.add(webhook)
    await session.flush()
    return webhook, reactivated


async def delete_webhook(session: AsyncSession, webhook_id: int) -> None:
    """Delete the webhook and its deliveries."""
    webhook = await get_webhook(session, webhook_id)
    statement = sa.delete(DELIVERIES).where(DELIVERIES.c.webhook_id == webhook_id)
    await session.exec(statement)
    await session.delete(webhook)
    await session.flush()


@dataclass(frozen=True)
class WebhookFilter:
    event_type: str | None = None
    is_active: bool | None = None


async def list_webhooks(
    session: AsyncSession, filters: WebhookFilter, limit: int, offset: int
) -> tuple[int, list[Webhook]]:
    """Newest first."""
    conditions = []
    if filters.event_type is not None:
        conditions.append(col(Webhook.event_type) == filters.event_type)
    if filters.is_active is not None:
        conditions.append(col(Webhook.is_active) == filters.is_active)
    total = (await session.exec(select(func.count()).select_from(Webhook).where(*conditions))).one()
    query = (
        select(Webhook)
        .where(*conditions)
        .order_by(col(Webhook.created_at).desc(), col(Webhook.id).desc())
        .limit(limit)
        .offset(offset)
    )
    return total, list((await session.exec(query)).all())


async def list_deliveries(
    session: AsyncSession, webhook_id: int, status: str | None, limit: int, offset: int
) -> tuple[int, list[WebhookDelivery]]:
    """A webhook's delivery attempts, newest first (404 for an unknown webhook)."""
    if (await session.exec(select(Webhook.id).where(Webhook.id == webhook_id))).first() is None:
        raise WebhookNotFound(webhook_id)
    conditions = [col(WebhookDelivery.webhook_id) == webhook_id]
    if status is not None:
        conditions.append(col(WebhookDelivery.status) == status)
    total = (await session.exec(select(func.count()).select_from(WebhookDelivery).where(*conditions))).one()
    query = (
        select(WebhookDelivery)
        .where(*conditions)
        .order_by(col(WebhookDelivery.id).desc())
        .limit(limit)
        .offset(offset)
    )
    return total, list((await session.exec(query)).all())


@dataclass(frozen=True)
class Stats:
    total_webhooks: int
    active_webhooks: int
    successful_deliveries: int
    failed_deliveries: int

    @property
    def total_deliveries(self) -> int:
        return self.successful_deliveries + self.failed_deliveries

    @property
    def success_rate(self) -> float:
        total = self.total_deliveries
        return round(self.successful_deliveries / total * 100, 2) if total else 0.0


async def stats(session: AsyncSession) -> Stats:
    """Webhook totals and delivery attempts made (pending deliveries are not attempts yet)."""
    active = sa.case((col(Webhook.is_active).is_(True), 1), else_=0)
    total_webhooks, active_webhooks = (
        await session.exec(select(func.count(), func.coalesce(func.sum(active), 0)).select_from(Webhook))
    ).one()
    by_status = dict(
        (
            await session.exec(
                select(WebhookDelivery.status, func.count())
                .where(col(WebhookDelivery.status).in_([SUCCESS, FAILED]))
                .group_by(WebhookDelivery.status)
            )
        ).all()
    )
    return Stats(
        total_webhooks=total_webhooks,
        active_webhooks=int(active_webhooks),
        successful_deliveries=by_status.get(SUCCESS, 0),
        failed_deliveries=by_status.get(FAILED, 0),
    )

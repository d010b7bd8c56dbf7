"""What a ticket event leaves behind, written in the transaction of the change that raised it:
in-app notification rows, messenger deliveries to send (a job sends them after the commit),
and the end of a ticket's SLA reminder when its user writes again.

:func:`plan` decides (pure); :func:`recorder` writes the plan in the publishing transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session
from sqlalchemy.util import await_only
from starlette.applications import Starlette
from subsvc_support.api import SupportConfig, support_config
from subsvc_tickets.api import MESSAGE_ADDED, TICKET_CREATED

from subsvc.db import utcnow
from subsvc.events import Event
from subsvc.services import services
from subsvc_ticket_notifications import texts
from subsvc_ticket_notifications.models import (
    ADMIN_NEW_TICKET,
    ADMIN_REPLY,
    ADMIN_USER_REPLY,
    NEW_TICKET,
    PENDING,
    USER_NOTICE,
    USER_REPLY,
)
from subsvc_ticket_notifications.tables import DELIVERIES, NOTIFICATIONS, REMINDERS

RECORDED = (TICKET_CREATED, MESSAGE_ADDED)
DELIVER_JOB = "ticket_notifications.deliver"

# what a delivery keeps of its event for the message
DELIVERY_FIELDS = (
    "ticket_id",
    "user_id",
    "title",
    "message_text",
    "media_type",
    "media_caption",
    "author_user_id",
)


@dataclass
class Plan:
    """The rows one transaction's ticket events call for."""

    notifications: list[dict[str, Any]] = field(default_factory=list)
    deliveries: list[dict[str, Any]] = field(default_factory=list)
    sla_over: list[int] = field(default_factory=list)  # tickets whose user wrote: reminder reset


def _notification(event: Event, kind: str, message: str, *, for_admin: bool, now: datetime) -> dict[str, Any]:
    payload = event.payload
    return {
        "ticket_id": payload["ticket_id"],
        "user_id": payload["user_id"],
        "notification_type": kind,
        "message": message,
        "is_for_admin": for_admin,
        "is_read": False,
        "created_at": now,
    }


def _delivery(event: Event, kind: str, now: datetime) -> dict[str, Any]:
    payload = event.payload
    return {
        "event_id": event.id,
        "kind": kind,
        "ticket_id": payload["ticket_id"],
        "user_id": payload["user_id"],
        "payload": {name: payload.get(name) for name in DELIVERY_FIELDS},
        "status": PENDING,
        "attempts": 0,
        "due_at": now,
        "created_at": now,
    }


def plan(config: SupportConfig, events: Sequence[Event], now: datetime) -> Plan:
    """The rows for ``events``, as ``config``'s toggles allow: a new ticket and a user's
    message notify the administrators, an administrator's reply notifies the ticket's owner."""
    found = Plan()
    for event in events:
        if event.type == TICKET_CREATED:
            to_admins, notice, kind, delivery = (
                True,
                texts.new_ticket(event.payload),
                NEW_TICKET,
                ADMIN_NEW_TICKET,
            )
        elif event.type == MESSAGE_ADDED and event.payload["is_from_admin"]:
            to_admins, notice, kind, delivery = (
                False,
                texts.admin_reply(event.payload),
                ADMIN_REPLY,
                USER_NOTICE,
            )
        elif event.type == MESSAGE_ADDED:
            to_admins, notice, kind, delivery = (
                True,
                texts.user_reply(event.payload),
                USER_REPLY,
                ADMIN_USER_REPLY,
            )
            found.sla_over.append(event.payload["ticket_id"])
        else:
            continue
        in_app = (
            config.cabinet_admin_notifications_enabled
            if to_admins
            else config.cabinet_user_notifications_enabled
        )
        messenger = (
            config.admin_ticket_notifications_enabled
            if to_admins
            else config.user_ticket_notifications_enabled
        )
        if in_app:
            found.notifications.append(_notification(event, kind, notice, for_admin=to_admins, now=now))
        if messenger:
            found.deliveries.append(_delivery(event, delivery, now))
    return found


def recorder(app: Starlette) -> Callable[[Session, list[Event]], None]:
    """The in-transaction subscriber: writes the plan of a transaction's ticket events and
    asks for the delivery job once it commits."""
    jobs = services(app).jobs

    def record(session: Session, events: list[Event]) -> None:
        ticket_events = [event for event in events if event.type in RECORDED]
        if not ticket_events:
            return
        # called in SQLAlchemy's greenlet (the commit of an AsyncSession): it may await; the
        # configuration is cached, a miss reads it with a session of its own
        config = await_only(support_config(app))
        found = plan(config, ticket_events, utcnow())
        if found.notifications:
            session.execute(sa.insert(NOTIFICATIONS), found.notifications)
        if found.deliveries:
            session.execute(sa.insert(DELIVERIES), found.deliveries)
            jobs.enqueue_after_commit(session, DELIVER_JOB)
        if found.sla_over:
            session.execute(sa.delete(REMINDERS).where(REMINDERS.c.ticket_id.in_(found.sla_over)))

    return record

"""The SLA reminder: tickets waiting for support (``open`` or ``pending``) longer than the
configured minutes are announced in the administrators' chat, once per cooldown per ticket.

Every worker runs the check (every ``sla_check_interval_seconds``); a ticket's reminder is
claimed by an upsert of its ``ticket_sla_reminders`` row that only succeeds when there is no
row or the last reminder is older than the cooldown, so of concurrent workers (and across
restarts) only the one whose statement wrote the row sends. A failed send gives the claim
back. A user's new message drops the row (:mod:`recording`): a new wait starts.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import sqlalchemy as sa
from starlette.applications import Starlette
from subsvc_support.api import support_config
from subsvc_tickets.api import WaitingTicket, waiting_tickets

from subsvc.db import utcnow
from subsvc.messenger import MessengerError
from subsvc.services import services
from subsvc_ticket_notifications import texts
from subsvc_ticket_notifications.deliveries import send_to_admin_chat
from subsvc_ticket_notifications.tables import REMINDERS, run, upsert

log = logging.getLogger("subsvc.ticket_notifications")

DEFAULT_INTERVAL = 60.0
_INTERVAL_KEY = "ticket_sla_interval"


def interval(app: Starlette) -> float:
    """How often the check runs: the interval the configuration gave at the last check."""
    return float(getattr(app.state, _INTERVAL_KEY, DEFAULT_INTERVAL))


async def _claim(app: Starlette, ticket_id: int, now: datetime, cooldown_before: datetime) -> bool:
    """Record a reminder of the ticket at ``now`` unless one was sent after ``cooldown_before``;
    whether this call recorded it."""
    async with services(app).db.session() as session:
        insert = upsert(session, REMINDERS).values(ticket_id=ticket_id, reminded_at=now)
        statement = insert.on_conflict_do_update(
            index_elements=["ticket_id"],
            set_={"reminded_at": insert.excluded.reminded_at},
            where=REMINDERS.c.reminded_at <= cooldown_before,
        ).returning(REMINDERS.c.ticket_id)
        won = (await run(session, statement)).first() is not None
        await session.commit()
    return won


async def _release(app: Starlette, ticket_id: int, now: datetime) -> None:
    """Give back a claim whose reminder could not be sent."""
    async with services(app).db.session() as session:
        condition = sa.and_(REMINDERS.c.ticket_id == ticket_id, REMINDERS.c.reminded_at == now)
        await run(session, sa.delete(REMINDERS).where(condition))
        await session.commit()


async def _remind(app: Starlette, ticket: WaitingTicket, now: datetime) -> bool:
    waited = max(0, int((now - ticket.waiting_since).total_seconds() // 60))
    try:
        await send_to_admin_chat(app, texts.sla_alert(ticket.id, ticket.title, ticket.status, waited))
    except MessengerError:
        log.warning("SLA reminder of ticket %s not sent", ticket.id, exc_info=True)
        await _release(app, ticket.id, now)
        return False
    return True


async def send_reminders(app: Starlette, *, now: datetime | None = None) -> int:
    """Remind of every ticket waiting too long at ``now``; how many reminders were sent."""
    config = await support_config(app)
    setattr(app.state, _INTERVAL_KEY, float(config.sla_check_interval_seconds))
    kernel = services(app)
    if (
        not (config.sla_enabled and config.admin_ticket_notifications_enabled)
        or kernel.settings.admin_chat_id is None
    ):
        return 0
    now = now or utcnow()
    waiting_before = now - timedelta(minutes=config.sla_minutes)
    cooldown_before = now - timedelta(minutes=config.sla_reminder_cooldown_minutes)
    sent, after = 0, 0
    while True:
        async with kernel.db.session(read_only=True) as session:
            batch = await waiting_tickets(session, waiting_before=waiting_before, after_id=after)
        for ticket in batch:
            if await _claim(app, ticket.id, now, cooldown_before):
                sent += await _remind(app, ticket, now)
        if len(batch) < 500:
            return sent
        after = batch[-1].id


async def sla_job(app: Starlette) -> None:
    """Alert the admin chat of tickets waiting for support longer than the SLA (once per cooldown)."""
    await send_reminders(app)

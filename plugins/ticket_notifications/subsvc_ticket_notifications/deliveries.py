"""Sending the messenger deliveries: the user's notification of an administrator's reply, and
the administrators' chat alerts of new tickets and users' messages.

The job is asked for after each commit that wrote deliveries, and also runs every
:data:`SWEEP_SECONDS` to retry what failed or was left behind. A sender claims a delivery by
moving its ``due_at`` forward in a conditional UPDATE (one sender wins), sends it, then marks
it ``sent``; a transient failure puts it back for a later try (at most :data:`MAX_ATTEMPTS`).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc.messenger import (
    MessengerError,
    MessengerNotConfigured,
    MessengerRateLimited,
    MessengerUnavailable,
)
from subsvc.services import services
from subsvc_ticket_notifications import texts
from subsvc_ticket_notifications.models import (
    ADMIN_NEW_TICKET,
    FAILED,
    NEW_TICKET,
    PENDING,
    SENT,
    SKIPPED,
    USER_NOTICE,
    USER_REPLY,
)
from subsvc_ticket_notifications.tables import DELIVERIES, run

log = logging.getLogger("subsvc.ticket_notifications")

SWEEP_SECONDS = 60.0
LEASE = timedelta(minutes=2)  # a claimed delivery is tried again after this if its sender died
MAX_ATTEMPTS = 5
BATCH = 100
D = DELIVERIES.c


def backoff(attempts: int) -> timedelta:
    """The wait before try ``attempts + 1``: 1, 2, 4, 8 minutes."""
    return timedelta(minutes=2 ** (attempts - 1))


async def _due(app: Starlette, now: datetime, after: int) -> list[int]:
    """The ids of pending deliveries due at ``now``, above ``after``, a batch."""
    query = (
        sa.select(D.id).where(D.status == PENDING, D.due_at <= now, D.id > after).order_by(D.id).limit(BATCH)
    )
    async with services(app).db.session(read_only=True) as session:
        return list((await run(session, query)).scalars().all())


async def send_due(app: Starlette, *, now: datetime | None = None) -> int:
    """Send the deliveries due at ``now``; how many were sent."""
    now = now or utcnow()
    sent, after = 0, 0
    while due := await _due(app, now, after):
        for delivery_id in due:
            sent += await _send_one(app, delivery_id, now)
        after = due[-1]
    return sent


async def _claim(app: Starlette, delivery_id: int, now: datetime) -> Any:
    """The delivery's row if this sender won it (its lease taken), else ``None``."""
    async with services(app).db.session() as session:
        claimed = (
            await run(
                session,
                sa.update(DELIVERIES)
                .where(D.id == delivery_id, D.status == PENDING, D.due_at <= now)
                .values(due_at=now + LEASE, attempts=D.attempts + 1)
                .returning(D.id, D.kind, D.user_id, D.payload, D.attempts),
            )
        ).first()
        await session.commit()
    return claimed


async def _finish(app: Starlette, delivery_id: int, **values: Any) -> None:
    async with services(app).db.session() as session:
        await run(session, sa.update(DELIVERIES).where(D.id == delivery_id).values(**values))
        await session.commit()


async def _send_one(app: Starlette, delivery_id: int, now: datetime) -> int:
    claimed = await _claim(app, delivery_id, now)
    if claimed is None:
        return 0
    try:
        sent = await _send(app, claimed.kind, claimed.user_id, claimed.payload)
    except (MessengerUnavailable, MessengerRateLimited) as exc:
        retry = claimed.attempts < MAX_ATTEMPTS
        await _finish(
            app,
            delivery_id,
            status=PENDING if retry else FAILED,
            due_at=now + backoff(claimed.attempts),
            error=exc.description,
        )
        return 0
    except MessengerNotConfigured as exc:
        await _finish(app, delivery_id, status=SKIPPED, error=exc.description)
        return 0
    except MessengerError as exc:  # refused for good (blocked, bad request)
        await _finish(app, delivery_id, status=FAILED, error=exc.description)
        return 0
    if not sent:
        await _finish(app, delivery_id, status=SKIPPED)
        return 0
    await _finish(app, delivery_id, status=SENT, sent_at=utcnow(), error=None)
    return 1


async def _user(app: Starlette, user_id: int) -> User | None:
    async with services(app).db.session(read_only=True) as session:
        user: User | None = await session.get(User, user_id)
        return user


async def _send(app: Starlette, kind: str, user_id: int, payload: dict[str, Any]) -> bool:
    """Send one delivery; false when there is nobody to send it to."""
    kernel = services(app)
    user = await _user(app, user_id)
    if kind == USER_NOTICE:
        if user is None or user.messenger_id is None:
            return False
        await kernel.messenger.send_message(user.messenger_id, texts.user_notice(payload))
        return True
    chat = kernel.settings.admin_chat_id
    if chat is None:
        return False
    author = _person(user, user_id)
    alert = texts.admin_alert(NEW_TICKET if kind == ADMIN_NEW_TICKET else USER_REPLY, payload, author)
    await send_to_admin_chat(app, alert)
    return True


def _person(user: User | None, user_id: int) -> texts.Person:
    if user is None:
        return texts.Person(user_id)
    name = " ".join(part for part in (user.first_name, user.last_name) if part)
    return texts.Person(user_id, name, user.username, user.messenger_id, user.email)


async def send_to_admin_chat(app: Starlette, text: str) -> None:
    """An HTML message to the administrators' chat, in its ticket topic when one is set."""
    kernel = services(app)
    params: dict[str, Any] = {"chat_id": kernel.settings.admin_chat_id, "text": text, "parse_mode": "HTML"}
    topic = kernel.settings.ADMIN_NOTIFICATIONS_TOPIC_ID
    if topic is not None:
        params["message_thread_id"] = topic
    await kernel.messenger.call("sendMessage", params)


async def deliver_job(app: Starlette) -> None:
    """Send the messenger notifications that are due: new ones, and failed ones again."""
    await send_due(app)

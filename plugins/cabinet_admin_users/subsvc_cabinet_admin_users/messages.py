"""Messages administrators send users through the bot, as a job.

``POST /{user_id}/send-message`` stores the message (``admin_user_messages``, status
``pending``) and enqueues the job once the request has committed; the job (and its periodic
pass, which finds what a lost nudge or a restart left) claims each due message, sends it with
the core messenger client and records the outcome: ``sent``; ``blocked`` when the user
blocked the bot (recorded, never retried; the client also reports it to its listeners);
``failed`` when the messenger refuses it; a rate limit or an unreachable messenger is retried
with a growing delay until ``ADMIN_USER_MESSAGE_ATTEMPTS`` attempts.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.jobs import Job
from subsvc.messenger import (
    Messenger,
    MessengerBlocked,
    MessengerError,
    MessengerRateLimited,
    MessengerUnavailable,
)
from subsvc.services import services
from subsvc_cabinet_admin_users.models import UserMessage
from subsvc_cabinet_admin_users.settings import CabinetAdminUsersSettings

log = logging.getLogger(__name__)
SEND_JOB = "cabinet_admin_users.send_messages"
PENDING, SENT, BLOCKED, FAILED = "pending", "sent", "blocked", "failed"
LEASE = timedelta(minutes=5)
BATCH = 50


def queue(
    app: Starlette, session: AsyncSession, user_id: int, chat_id: int, text: str, sent_by: int
) -> UserMessage:
    """Store a message to send and nudge the job once the session commits."""
    message = UserMessage(user_id=user_id, chat_id=chat_id, text=text, sent_by=sent_by)
    session.add(message)
    services(app).jobs.enqueue_after_commit(session, SEND_JOB)
    return message


async def _claim(app: Starlette) -> list[UserMessage]:
    """The due pending messages, each moved a lease ahead so that no other worker takes it."""
    now = utcnow()
    async with services(app).db.session() as session:
        due = select(col(UserMessage.id)).where(
            col(UserMessage.status) == PENDING, col(UserMessage.next_attempt_at) <= now
        )
        ids = list((await session.exec(due.order_by(col(UserMessage.id)).limit(BATCH))).all())
        claimed: list[UserMessage] = []
        for message_id in ids:
            taken = await session.exec(
                update(UserMessage)
                .where(
                    col(UserMessage.id) == message_id,
                    col(UserMessage.status) == PENDING,
                    col(UserMessage.next_attempt_at) <= now,
                )
                .values(next_attempt_at=now + LEASE)
            )
            if taken.rowcount:
                found = await session.get(UserMessage, message_id)
                if found is not None:
                    claimed.append(found)
        await session.commit()
        for message in claimed:
            session.expunge(message)
    return claimed


async def _send(messenger: Messenger, message: UserMessage, attempts_allowed: int) -> dict[str, object]:
    """The message's new columns after one attempt."""
    now = utcnow()
    attempts = message.attempts + 1
    try:
        sent = await messenger.send_message(message.chat_id, message.text)
    except MessengerBlocked as exc:
        return {"status": BLOCKED, "attempts": attempts, "error": exc.description}
    except (MessengerRateLimited, MessengerUnavailable) as exc:
        if attempts >= attempts_allowed:
            return {"status": FAILED, "attempts": attempts, "error": exc.description}
        delay = getattr(exc, "retry_after", 0) or 30 * 2 ** (attempts - 1)
        return {
            "attempts": attempts,
            "error": exc.description,
            "next_attempt_at": now + timedelta(seconds=delay),
        }
    except MessengerError as exc:
        return {"status": FAILED, "attempts": attempts, "error": exc.description}
    message_id = sent.get("message_id") if isinstance(sent, dict) else None
    return {
        "status": SENT,
        "attempts": attempts,
        "error": None,
        "sent_at": now,
        "message_id": message_id if isinstance(message_id, int) else None,
    }


async def send_due(app: Starlette) -> None:
    """Send every due message (the job)."""
    messenger: Messenger = services(app).messenger
    if not messenger.configured:
        return
    allowed = CabinetAdminUsersSettings.of(app).ADMIN_USER_MESSAGE_ATTEMPTS
    while claimed := await _claim(app):
        for message in claimed:
            values = await _send(messenger, message, allowed)
            async with services(app).db.session() as session:
                await session.exec(
                    update(UserMessage).where(col(UserMessage.id) == message.id).values(**values)
                )
                await session.commit()
            log.info(
                "admin message %s to user %s: %s", message.id, message.user_id, values.get("status", PENDING)
            )
        if len(claimed) < BATCH:
            return


async def _run(app: Starlette, **_: object) -> None:
    """Send the administrators' messages that are due (queued, or waiting for a retry)."""
    await send_due(app)


SEND = Job(
    SEND_JOB, _run, every=lambda app: CabinetAdminUsersSettings.of(app).ADMIN_USER_MESSAGE_POLL_SECONDS
)

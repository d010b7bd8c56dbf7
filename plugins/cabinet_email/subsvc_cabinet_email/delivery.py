"""Mail that leaves only after its proof is committed, and takes the proof back if it cannot
leave.

Every flow that mails a link or a code first writes the proof (an :class:`EmailToken` row)
and nothing else; the user row changes only when the proof comes back. So the one thing to
undo when the SMTP server fails is that row: the request then answers 503 and the database
is as it was before it.
"""

from __future__ import annotations

import asyncio
import logging
from email.message import EmailMessage
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.services import services
from subsvc_cabinet_email import tokens
from subsvc_cabinet_email.mailer import Mailer, MailError

log = logging.getLogger("subsvc.cabinet_email")
SEND_FAILED = "Failed to send email. Please try again later."
NOT_CONFIGURED = "Email service is not configured"
DRAIN_SECONDS = 10.0


class DeliveryFailed(Exception):
    """The message could not be sent; its proof was removed again."""


def mailer(app: Starlette) -> Mailer:
    found: Mailer = app.state.cabinet_email_mailer
    return found


async def commit_and_send(session: AsyncSession, app: Starlette, message: EmailMessage, row_id: int) -> None:
    """Commit the request's transaction, then send; when sending fails, delete the proof
    ``row_id`` again (committed) and raise :class:`DeliveryFailed`."""
    await session.commit()
    try:
        await mailer(app).send(message)
    except MailError:
        await _withdraw(session, row_id)
        raise DeliveryFailed(SEND_FAILED) from None


async def _withdraw(session: AsyncSession, row_id: int) -> None:
    try:
        await tokens.delete_row(session, row_id)
        await session.commit()
    except Exception:
        # the link or code never reached anyone; a row left behind is unusable and purged later
        log.exception("could not remove the proof %s of an unsent message", row_id)


def send_later(app: Starlette, message: EmailMessage, row_id: int) -> None:
    """Send in the background (the caller has committed); on failure delete proof ``row_id``.

    For answers that must not depend on whether an account exists (password reset)."""
    pending: set[asyncio.Task[Any]] = app.state.cabinet_email_sending
    task = asyncio.create_task(_send_or_withdraw(app, message, row_id))
    pending.add(task)
    task.add_done_callback(pending.discard)


async def _send_or_withdraw(app: Starlette, message: EmailMessage, row_id: int) -> None:
    try:
        await mailer(app).send(message)
    except MailError:
        async with services(app).db.session() as session:
            await _withdraw(session, row_id)


async def drain(app: Starlette) -> None:
    """Wait (at most :data:`DRAIN_SECONDS`) for background sends to finish (at shutdown)."""
    pending: set[asyncio.Task[Any]] = app.state.cabinet_email_sending
    if pending:
        await asyncio.wait(set(pending), timeout=DRAIN_SECONDS)

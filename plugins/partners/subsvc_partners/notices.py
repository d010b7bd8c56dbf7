"""Messenger notices of the programme's decisions: to the user (application decided, withdrawal
approved, rejected or paid) and to the administrators' chat (a new application or withdrawal
request, with its risk level). Enqueued as jobs that run once the change commits."""

from __future__ import annotations

import logging

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.jobs import Job
from subsvc.messenger import MessengerError, MessengerNotConfigured
from subsvc.services import services

TO_USER, TO_ADMINS = "partners.notify_user", "partners.notify_admins"
log = logging.getLogger(__name__)


def to_user(app: Starlette, session: AsyncSession, user_id: int, text: str) -> None:
    services(app).jobs.enqueue_after_commit(session, TO_USER, user_id=user_id, text=text)


def to_admins(app: Starlette, session: AsyncSession, text: str) -> None:
    services(app).jobs.enqueue_after_commit(session, TO_ADMINS, text=text)


async def _send(app: Starlette, chat_id: int | str, text: str) -> None:
    try:
        await services(app).messenger.send_message(chat_id, text)
    except MessengerNotConfigured:
        log.debug("partners notice not sent: no messenger")
    except MessengerError:
        log.warning("partners notice to %s not sent", chat_id, exc_info=True)


async def send_to_user(app: Starlette, *, user_id: int, text: str) -> None:
    """Send ``text`` to the user's messenger chat (nothing for a user without one)."""
    async with services(app).db.session(read_only=True) as session:
        user = await session.get(User, user_id)
    if user is not None and user.messenger_id is not None:
        await _send(app, user.messenger_id, text)


async def send_to_admins(app: Starlette, *, text: str) -> None:
    """Send ``text`` to the administrators' chat (nothing when none is configured)."""
    chat = services(app).settings.admin_chat_id
    if chat is not None:
        await _send(app, chat, text)


JOBS = [Job(TO_USER, send_to_user), Job(TO_ADMINS, send_to_admins)]

"""Messenger notices of credited commissions and bonuses, sent by a job after the commit."""

from __future__ import annotations

import logging
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.jobs import Job
from subsvc.messenger import MessengerError, MessengerNotConfigured
from subsvc.services import services

NOTIFY_JOB = "referrals.notify"
log = logging.getLogger(__name__)


def rubles(kopeks: int) -> str:
    return f"{kopeks / 100:.2f}".rstrip("0").rstrip(".") + " ₽"


def notify(app: Starlette, session: AsyncSession, paid: Any) -> None:
    """Enqueue the notices of ``paid`` (a :class:`~subsvc_referrals.commissions.Paid`) to run
    once ``session`` commits."""
    jobs = services(app).jobs
    if paid.referrer_kopeks > 0:
        text = (
            f"🎉 Реферальное вознаграждение: {rubles(paid.referrer_kopeks)} "
            "за первое пополнение вашего реферала."
            if paid.first_topup
            else f"💰 Реферальная комиссия: {rubles(paid.referrer_kopeks)} с пополнения вашего реферала."
        )
        jobs.enqueue_after_commit(session, NOTIFY_JOB, user_id=paid.referrer_id, text=text)
    if paid.referee_kopeks > 0:
        text = f"🎁 Бонус за первое пополнение: {rubles(paid.referee_kopeks)} зачислено на баланс."
        jobs.enqueue_after_commit(session, NOTIFY_JOB, user_id=paid.referee_id, text=text)


async def send_notice(app: Starlette, *, user_id: int, text: str) -> None:
    """Send ``text`` to the user's messenger chat (nothing for a user without one)."""
    async with services(app).db.session(read_only=True) as session:
        user = await session.get(User, user_id)
        chat_id = user.messenger_id if user is not None else None
    if chat_id is None:
        return
    try:
        await services(app).messenger.send_message(chat_id, text)
    except MessengerNotConfigured:
        log.debug("referral notice to user %s not sent: no messenger", user_id)
    except MessengerError:
        log.warning("referral notice to user %s not sent", user_id, exc_info=True)


JOBS = [Job(NOTIFY_JOB, send_notice)]

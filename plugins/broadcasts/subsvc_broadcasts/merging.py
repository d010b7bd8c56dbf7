"""Account merge, broadcasts' part (``cabinet_account_merging``): the removed user's messages
of broadcasts become the kept user's, except where the kept user has a message of the same
broadcast (one per user and broadcast: the kept user's stays, the other is deleted)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_broadcasts.models import RECIPIENTS


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """broadcasts' part of an account merge (see the module's text)."""
    recipients = RECIPIENTS.c
    await reassign(
        session, recipients.user_id, kept_user_id, removed_user_id, unique=(recipients.broadcast_id,)
    )

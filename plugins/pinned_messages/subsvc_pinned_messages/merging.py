"""Account merge, pinned_messages' part (``cabinet_account_merging``): the removed user's
deliveries become the kept user's, except where the kept user has one of the same run (one
per user and run: the kept user's stays, the other is deleted); messages and runs the removed
user created name the kept user."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_pinned_messages.models import DELIVERIES, MESSAGES, RUNS


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """pinned_messages' part of an account merge (see the module's text)."""
    deliveries = DELIVERIES.c
    await reassign(session, deliveries.user_id, kept_user_id, removed_user_id, unique=(deliveries.run_id,))
    for column in (MESSAGES.c.created_by, RUNS.c.created_by):
        await reassign(session, column, kept_user_id, removed_user_id)

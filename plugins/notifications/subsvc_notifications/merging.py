"""Account merge, notifications' part (``cabinet_account_merging``): the removed user's
subscription events become the kept user's (they now concern the kept user's
subscriptions)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_notifications.models import SubscriptionEvent


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """notifications' part of an account merge (see the module's text)."""
    table = SubscriptionEvent.__table__  # type: ignore[attr-defined]
    await reassign(session, table.c.user_id, kept_user_id, removed_user_id)

"""Account merge, tickets' part (``cabinet_account_merging``): the removed user's tickets and
messages become the kept user's. Were both to keep an active ticket, the removed user's one
is closed first (``ticket.status_changed``), so the kept user still has one active ticket."""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_tickets import service
from subsvc_tickets.models import Ticket, TicketMessage

TICKETS = Ticket.__table__.c  # type: ignore[attr-defined]
MESSAGES = TicketMessage.__table__.c  # type: ignore[attr-defined]


@hookimpl(optionalhook=True)
async def cabinet_account_merging(
    app: Starlette, session: AsyncSession, kept_user_id: int, removed_user_id: int
) -> None:
    """tickets' part of an account merge (see the module's text)."""
    if await _active_ticket(session, kept_user_id) is not None:
        removed_active = await _active_ticket(session, removed_user_id)
        if removed_active is not None:
            await service.change_status(app, session, removed_active, "closed")
    await reassign(session, TICKETS.user_id, kept_user_id, removed_user_id)
    await reassign(session, MESSAGES.author_user_id, kept_user_id, removed_user_id)


async def _active_ticket(session: AsyncSession, user_id: int) -> int | None:
    query = select(col(Ticket.id)).where(col(Ticket.user_id) == user_id, col(Ticket.status) != "closed")
    found: int | None = (await session.exec(query)).scalar_one_or_none()  # type: ignore[call-overload]
    return found

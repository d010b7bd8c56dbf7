"""Account merge, tickets' part: tickets and messages move to the kept user; of two active
tickets the removed user's is closed (with its event), leaving one active ticket."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from subsvc_tickets.merging import cabinet_account_merging
from subsvc_tickets.models import Ticket, TicketMessage

from subsvc.db import Database

from .conftest import open_ticket


async def test_tickets_move_and_one_stays_active(
    app: Starlette, db: Database, make_user: Any, cabinet: Any, rows: Any, outbox: Any
):
    kept, removed = await make_user(username="kept"), await make_user(username="removed")
    async with cabinet(kept.id) as http:
        kept_ticket = (await open_ticket(http))["id"]
    async with cabinet(removed.id) as http:
        removed_ticket = (await open_ticket(http, title="From the other account"))["id"]
    async with db.session() as session:
        await cabinet_account_merging(app, session, kept.id, removed.id)
        await session.commit()
    tickets = {t.id: (t.user_id, t.status) for t in await rows(Ticket)}
    assert tickets == {kept_ticket: (kept.id, "open"), removed_ticket: (kept.id, "closed")}
    assert {m.author_user_id for m in await rows(TicketMessage)} == {kept.id}
    changed = [p for kind, p in await outbox() if kind == "ticket.status_changed"]
    assert [(p["ticket_id"], p["old_status"], p["new_status"]) for p in changed] == [
        (removed_ticket, "open", "closed")
    ]


async def test_nothing_closed_when_only_one_is_active(
    app: Starlette, db: Database, make_user: Any, cabinet: Any, rows: Any
):
    kept, removed = await make_user(username="kept"), await make_user(username="removed")
    async with cabinet(removed.id) as http:
        moved = (await open_ticket(http))["id"]
    async with db.session() as session:
        await cabinet_account_merging(app, session, kept.id, removed.id)
        await session.commit()
    assert [(t.id, t.user_id, t.status) for t in await rows(Ticket)] == [(moved, kept.id, "open")]

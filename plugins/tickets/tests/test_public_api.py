"""``subsvc_tickets.api``: whose ticket it is, and the tickets waiting for support."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from subsvc_tickets.api import WAITING_STATUSES, ticket_owner, waiting_tickets
from subsvc_tickets.models import Ticket

from subsvc.db import Database, utcnow


async def test_owner_and_waiting_tickets(db: Database, make_user: Any):
    ann, bob, cid, dan = [await make_user(username=name) for name in ("ann", "bob", "cid", "dan")]
    now = utcnow()
    old = now - timedelta(hours=1)
    async with db.session() as session:
        rows = [
            Ticket(user_id=ann.id, title="open, old", status="open", updated_at=old),
            Ticket(user_id=bob.id, title="pending, old", status="pending", updated_at=old),
            Ticket(user_id=cid.id, title="answered, old", status="answered", updated_at=old),
            Ticket(user_id=dan.id, title="open, recent", status="open", updated_at=now),
            Ticket(user_id=dan.id, title="closed, old", status="closed", updated_at=old),
        ]
        session.add_all(rows)
        await session.commit()
        ids = [row.id for row in rows]
    assert WAITING_STATUSES == ("open", "pending")
    async with db.session() as session:
        assert await ticket_owner(session, ids[1]) == bob.id
        assert await ticket_owner(session, 999_999) is None
        waiting = await waiting_tickets(session, waiting_before=now - timedelta(minutes=5))
        assert [(t.id, t.status, t.user_id) for t in waiting] == [
            (ids[0], "open", ann.id),
            (ids[1], "pending", bob.id),
        ]
        assert waiting[0].waiting_since == old
        later = await waiting_tickets(session, waiting_before=now, after_id=ids[0], limit=1)
        assert [t.id for t in later] == [ids[1]]

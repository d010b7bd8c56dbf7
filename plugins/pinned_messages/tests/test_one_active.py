"""At most one active message: concurrent creations and activations leave exactly one, and the
database itself refuses a second active row (partial unique index)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.exc import IntegrityError
from subsvc_pinned_messages.models import PinnedMessage

from subsvc.db import utcnow

WEB = "/pinned-messages"


async def test_concurrent_creations_and_activations_leave_exactly_one_active(client, rows):
    created = await asyncio.gather(*(client.post(WEB, json={"content": f"m{n}"}) for n in range(8)))
    assert [response.status_code for response in created] == [201] * 8
    ids = [response.json()["message"]["id"] for response in created]
    activated = await asyncio.gather(*(client.post(f"{WEB}/{message_id}/activate") for message_id in ids))
    assert [response.status_code for response in activated] == [200] * 8
    active = [row.id for row in await rows(PinnedMessage) if row.is_active]
    assert len(active) == 1
    assert (await client.get(f"{WEB}/active")).json()["id"] == active[0]


async def test_the_database_refuses_a_second_active_message(db):
    now = utcnow()
    async with db.session() as session:
        session.add(PinnedMessage(content="a", is_active=True, created_at=now))
        session.add(PinnedMessage(content="b", is_active=False, created_at=now))
        await session.commit()
    async with db.session() as session:
        session.add(PinnedMessage(content="c", is_active=True, created_at=now))
        with pytest.raises(IntegrityError):
            await session.commit()

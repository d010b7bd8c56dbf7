"""One active ticket per user, decided by the database: twenty concurrent creations by one
user give exactly one ticket (on PostgreSQL the requests really race)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import httpx2
from subsvc_tickets.models import Ticket

from .conftest import NEW_TICKET


async def test_twenty_concurrent_creations_make_one_ticket(member: httpx2.AsyncClient, rows: Any):
    answers = await asyncio.gather(*(member.post("/cabinet/tickets", json=NEW_TICKET) for _ in range(20)))
    assert Counter(answer.status_code for answer in answers) == {200: 1, 409: 19}
    assert {a.json()["detail"] for a in answers if a.status_code == 409} == {
        "You already have an open ticket"
    }
    assert len(await rows(Ticket)) == 1


async def test_a_closed_ticket_does_not_count(member: httpx2.AsyncClient, client: httpx2.AsyncClient):
    first = (await member.post("/cabinet/tickets", json=NEW_TICKET)).json()
    await client.post(f"/tickets/{first['id']}/status", json={"status": "pending"})
    # pending is still active
    assert (await member.post("/cabinet/tickets", json=NEW_TICKET)).status_code == 409
    await client.post(f"/tickets/{first['id']}/status", json={"status": "closed"})
    assert (await member.post("/cabinet/tickets", json=NEW_TICKET)).status_code == 200

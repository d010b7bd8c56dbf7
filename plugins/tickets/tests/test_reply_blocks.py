"""Reply blocks: timed, permanent, lifted; a block on any ticket of the user stops new
tickets and messages (403), and ``is_reply_blocked`` says so."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx2
import sqlalchemy as sa
from subsvc_tickets.models import Ticket

from subsvc.db import Database, utcnow

from .conftest import NEW_TICKET, detail, open_ticket

BLOCKED = "You are blocked from contacting support"


async def test_timed_permanent_and_lifted_blocks(
    member: httpx2.AsyncClient, admin: httpx2.AsyncClient, client: httpx2.AsyncClient, db: Database
):
    tid = (await open_ticket(member))["id"]
    until = (utcnow() + timedelta(hours=2)).replace(microsecond=0)
    blocked = detail(await client.post(f"/tickets/{tid}/reply-block", json={"until": until.isoformat()}))
    assert blocked["user_reply_block_permanent"] is False
    assert blocked["user_reply_block_until"].startswith(until.strftime("%Y-%m-%dT%H:%M:%S"))
    text = f"{BLOCKED} until {until.strftime('%d.%m.%Y %H:%M')} UTC"
    message = {"message": "Let me write"}
    assert detail(await member.post(f"/cabinet/tickets/{tid}/messages", json=message), 403) == text
    assert detail(await member.get(f"/cabinet/tickets/{tid}"))["is_reply_blocked"] is True
    assert detail(await admin.get(f"/cabinet/admin/tickets/{tid}"))["is_reply_blocked"] is True
    # a closed blocked ticket still blocks new ones
    detail(await client.post(f"/tickets/{tid}/status", json={"status": "closed"}))
    assert detail(await member.post("/cabinet/tickets", json=NEW_TICKET), 403) == text

    # the time passes: the block ends by itself
    async with db.session() as session:
        past = utcnow() - timedelta(minutes=1)
        await session.exec(sa.update(Ticket).where(Ticket.id == tid).values(user_reply_block_until=past))  # type: ignore[call-overload,arg-type]
        await session.commit()
    assert detail(await member.get(f"/cabinet/tickets/{tid}"))["is_reply_blocked"] is False
    second = (await open_ticket(member, title="After the block"))["id"]

    # permanent
    detail(await client.post(f"/tickets/{second}/reply-block", json={"permanent": True}))
    assert detail(await member.post(f"/cabinet/tickets/{second}/messages", json=message), 403) == BLOCKED
    assert detail(await member.get(f"/cabinet/tickets/{second}"))["is_reply_blocked"] is True

    # lifted
    lifted = detail(await client.delete(f"/tickets/{second}/reply-block"))
    assert lifted["user_reply_block_permanent"] is False and lifted["user_reply_block_until"] is None
    assert (
        detail(await member.post(f"/cabinet/tickets/{second}/messages", json=message))["message_text"]
        == "Let me write"
    )
    assert detail(await member.get(f"/cabinet/tickets/{second}"))["is_reply_blocked"] is False


async def test_block_in_the_past_refused(member: httpx2.AsyncClient, client: httpx2.AsyncClient):
    tid = (await open_ticket(member))["id"]
    past = (utcnow() - timedelta(minutes=5)).isoformat()
    answer = await client.post(f"/tickets/{tid}/reply-block", json={"until": past})
    assert detail(answer, 400) == "Block expiration must be in the future"
    assert (
        detail(await client.post("/tickets/999999/reply-block", json={"permanent": True}), 404)
        == "Ticket not found"
    )
    assert detail(await client.delete("/tickets/999999/reply-block"), 404) == "Ticket not found"


async def test_admin_can_still_answer_a_blocked_user(
    member: httpx2.AsyncClient, admin: httpx2.AsyncClient, client: httpx2.AsyncClient, outbox: Any
):
    tid = (await open_ticket(member))["id"]
    detail(await client.post(f"/tickets/{tid}/reply-block", json={"permanent": True}))
    assert detail(await admin.post(f"/cabinet/admin/tickets/{tid}/reply", json={"message": "Noted"}))[
        "is_from_admin"
    ]

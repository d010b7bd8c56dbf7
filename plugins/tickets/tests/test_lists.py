"""Lists: order (last change first), filters, pages, and a fixed number of queries per page."""

from __future__ import annotations

from typing import Any

import httpx2

from subsvc.testing import recorded_statements

from .conftest import detail, open_ticket

ADMIN = "/cabinet/admin/tickets"


async def make_tickets(cabinet: Any, make_user: Any, count: int) -> list[int]:
    ids = []
    for n in range(count):
        user = await make_user(username=f"user{n}", first_name=f"U{n}")
        async with cabinet(user.id) as http:
            ids.append((await open_ticket(http, title=f"Ticket {n}"))["id"])
    return ids


async def test_pages_order_and_filters(
    admin: httpx2.AsyncClient, client: httpx2.AsyncClient, cabinet: Any, make_user: Any
):
    ids = await make_tickets(cabinet, make_user, 3)
    # a reply moves a ticket to the top
    detail(await admin.post(f"{ADMIN}/{ids[0]}/reply", json={"message": "On it"}))
    first = detail(await admin.get(ADMIN, params={"per_page": 2}))
    assert (first["total"], first["pages"], first["page"], first["per_page"]) == (3, 2, 1, 2)
    assert [t["id"] for t in first["items"]] == [ids[0], ids[2]]
    assert first["items"][0]["messages_count"] == 2 and first["items"][0]["last_message"]["is_from_admin"]
    second = detail(await admin.get(ADMIN, params={"per_page": 2, "page": 2}))
    assert [t["id"] for t in second["items"]] == [ids[1]]
    answered = detail(await admin.get(ADMIN, params={"status": "answered"}))
    assert [t["id"] for t in answered["items"]] == [ids[0]]
    detail(await client.post(f"/tickets/{ids[1]}/priority", json={"priority": "high"}))
    high = detail(await client.get("/tickets", params={"priority": "high"}))
    assert [t["id"] for t in high] == [ids[1]]
    web_page = detail(await client.get("/tickets", params={"limit": 1, "offset": 1}))
    assert [t["id"] for t in web_page] == [ids[2]]
    owner = first["items"][0]["user"]["id"]
    assert [t["id"] for t in detail(await client.get("/tickets", params={"user_id": owner}))] == [ids[0]]
    mine = detail(await admin.get(ADMIN, params={"user_id": owner, "priority": "high"}))
    assert mine["items"] == [] and mine["pages"] == 1


async def test_the_user_lists_only_own_tickets(member: httpx2.AsyncClient, cabinet: Any, make_user: Any):
    await make_tickets(cabinet, make_user, 2)
    own = await open_ticket(member)
    listed = detail(await member.get("/cabinet/tickets"))
    assert [t["id"] for t in listed["items"]] == [own["id"]] and listed["total"] == 1
    assert listed["items"][0]["last_message"]["message_text"] == "Nothing connects since this morning"
    assert detail(await member.get("/cabinet/tickets", params={"status": "closed"}))["items"] == []


async def test_no_query_per_row(admin: httpx2.AsyncClient, app: Any, cabinet: Any, make_user: Any):
    await make_tickets(cabinet, make_user, 4)
    with recorded_statements(app.state.db) as one:
        detail(await admin.get(ADMIN, params={"per_page": 1}))
    with recorded_statements(app.state.db) as four:
        detail(await admin.get(ADMIN, params={"per_page": 4}))
    assert len(one) == len(four)

"""The whole life of a ticket across the three areas: who wrote each message, the one status
machine, and each event published once with the true old status."""

from __future__ import annotations

from typing import Any

import httpx2

from .conftest import detail, open_ticket

ADMIN = "/cabinet/admin/tickets"


async def test_life_of_a_ticket(
    member: httpx2.AsyncClient, admin: httpx2.AsyncClient, client: httpx2.AsyncClient, outbox: Any
):
    created = await open_ticket(member)
    tid = created["id"]
    assert created["status"] == "open" and created["priority"] == "normal"
    assert created["is_reply_blocked"] is False and created["closed_at"] is None
    assert [m["message_text"] for m in created["messages"]] == ["Nothing connects since this morning"]
    # one active ticket per user
    again = await member.post("/cabinet/tickets", json={"title": "Another", "message": "Second one here"})
    assert detail(again, 409) == "You already have an open ticket"

    # every area sees it
    listed = detail(await admin.get(ADMIN))
    assert listed["total"] == 1 and listed["pages"] == 1
    item = listed["items"][0]
    assert item["id"] == tid and item["messages_count"] == 1
    assert item["user"] == {
        "id": 2,
        "messenger_id": 900_000_002,
        "email": None,
        "username": "member",
        "first_name": "Mia",
        "last_name": "Lind",
    }
    assert item["last_message"]["message_text"] == "Nothing connects since this morning"
    web_list = detail(await client.get("/tickets"))
    assert [(t["id"], t["user_id"], t["messages"]) for t in web_list] == [(tid, 2, [])]

    # the cabinet administrator answers: recorded as user 1
    reply = detail(await admin.post(f"{ADMIN}/{tid}/reply", json={"message": "Restart the app, please"}))
    assert reply["is_from_admin"] is True
    assert detail(await member.get(f"/cabinet/tickets/{tid}"))["status"] == "answered"
    # the user writes back: answered -> pending
    mine = detail(await member.post(f"/cabinet/tickets/{tid}/messages", json={"message": "Still broken"}))
    assert mine["is_from_admin"] is False
    assert detail(await client.get(f"/tickets/{tid}"))["status"] == "pending"
    # the Web API answers: recorded as the API token
    web_reply = await client.post(f"/tickets/{tid}/reply", json={"message_text": "  Checking the server  "})
    answer = detail(web_reply, 201)
    assert answer["ticket"]["status"] == "answered"
    assert answer["message"]["message_text"] == "Checking the server"
    assert answer["message"]["author_name"] == "Bootstrap Token"
    assert answer["message"]["author_token_id"] is not None and answer["message"]["author_user_id"] is None

    web = detail(await client.get(f"/tickets/{tid}"))
    authors = [(m["is_from_admin"], m["author_user_id"], m["author_name"]) for m in web["messages"]]
    assert authors == [(False, 2, None), (True, 1, None), (False, 2, None), (True, None, "Bootstrap Token")]

    # closing: no more user messages
    closed = detail(await admin.post(f"{ADMIN}/{tid}/status", json={"status": "closed"}))
    assert closed["status"] == "closed" and closed["closed_at"] is not None
    refused = await member.post(f"/cabinet/tickets/{tid}/messages", json={"message": "Hello?"})
    assert detail(refused, 400) == "Cannot add message to closed ticket"
    # the same status again changes nothing and publishes nothing
    detail(await client.post(f"/tickets/{tid}/status", json={"status": "closed"}))
    # an admin reply reopens it, clearing closed_at
    reopened = detail(await client.post(f"/tickets/{tid}/reply", json={"message_text": "Fixed now"}), 201)
    assert reopened["ticket"]["status"] == "answered" and reopened["ticket"]["closed_at"] is None
    # an explicit change from the Web API: the true old status in the event
    moved = detail(await client.post(f"/tickets/{tid}/status", json={"status": "open"}))
    assert moved["status"] == "open"

    stats = detail(await admin.get(f"{ADMIN}/stats"))
    assert stats == {"total": 1, "open": 1, "pending": 0, "answered": 0, "closed": 0}

    events = [(kind, payload) for kind, payload in await outbox() if kind.startswith("ticket.")]
    summary = [
        (kind, p.get("is_from_admin"), p.get("author_user_id"), p.get("old_status"), p.get("new_status"))
        for kind, p in events
    ]
    assert summary == [
        ("ticket.created", None, None, None, None),
        ("ticket.message_added", True, 1, None, None),
        ("ticket.message_added", False, 2, None, None),
        ("ticket.message_added", True, None, None, None),
        ("ticket.status_changed", None, None, "answered", "closed"),
        ("ticket.message_added", True, None, None, None),
        ("ticket.status_changed", None, None, "closed", "answered"),
        ("ticket.status_changed", None, None, "answered", "open"),
    ]
    first = events[0][1]
    assert first["ticket_id"] == tid and first["user_id"] == 2 and first["title"] == "VPN is down"
    assert first["message_id"] == created["messages"][0]["id"] and first["priority"] == "normal"
    assert events[3][1]["author_name"] == "Bootstrap Token"
    assert all(p["user_id"] == 2 for _, p in events)


async def test_reopening_refused_while_the_user_has_another_active_ticket(
    member: httpx2.AsyncClient, admin: httpx2.AsyncClient, client: httpx2.AsyncClient
):
    first = await open_ticket(member)
    detail(await admin.post(f"{ADMIN}/{first['id']}/status", json={"status": "closed"}))
    second = await open_ticket(member, title="A new problem")
    conflict = await admin.post(f"{ADMIN}/{first['id']}/reply", json={"message": "About the old one"})
    assert detail(conflict, 409) == "The user already has another open ticket"
    reopen = await client.post(f"/tickets/{first['id']}/status", json={"status": "open"})
    assert detail(reopen, 409) == "The user already has another open ticket"
    assert detail(await client.get(f"/tickets/{first['id']}"))["status"] == "closed"
    assert detail(await client.get(f"/tickets/{second['id']}"))["status"] == "open"


async def test_priority_and_closed_at_rules(
    admin: httpx2.AsyncClient, client: httpx2.AsyncClient, member: Any
):
    tid = (await open_ticket(member))["id"]
    assert (
        detail(await admin.post(f"{ADMIN}/{tid}/priority", json={"priority": "urgent"}))["priority"]
        == "urgent"
    )
    assert (
        detail(await client.post(f"/tickets/{tid}/priority", json={"priority": "low"}))["priority"] == "low"
    )
    closed = detail(await client.post(f"/tickets/{tid}/status", json={"status": "closed"}))
    assert closed["closed_at"] is not None
    # leaving closed clears closed_at (Web API too)
    pending = detail(await client.post(f"/tickets/{tid}/status", json={"status": "pending"}))
    assert pending["closed_at"] is None

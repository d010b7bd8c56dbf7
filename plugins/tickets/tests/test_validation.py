"""Validation and refusal texts of the three areas."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from .conftest import detail, open_ticket

ADMIN = "/cabinet/admin/tickets"


def messages(answer: httpx2.Response) -> list[str]:
    assert answer.status_code == 422, answer.text
    return [error["msg"] for error in answer.json()["detail"]]


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ({"title": "Help", "message": "   "}, "message or media is required"),
        ({"title": "  a  ", "message": "Some text"}, "title must have at least 3 characters besides spaces"),
        ({"title": "Help", "media_items": []}, "media_items must not be empty (send null instead)"),
        ({"title": "Help", "media_type": "photo"}, "media_type and media_file_id must be given together"),
        (
            {"title": "Help", "media_type": "voice", "media_file_id": "AgAD1234567890abcd"},
            "media_type must be one of",
        ),
        (
            {
                "title": "Help",
                "media_type": "photo",
                "media_file_id": "AgAD_other_file_id",
                "media_items": [{"type": "photo", "file_id": "AgAD_first_file_id"}],
            },
            "must match media_items[0]",
        ),
        (
            {"title": "Help", "media_items": [{"type": "sticker", "file_id": "AgAD1234567890abcd"}]},
            "type must be one of",
        ),
    ],
)
async def test_cabinet_message_rules(member: httpx2.AsyncClient, body: dict[str, Any], text: str):
    assert any(text in message for message in messages(await member.post("/cabinet/tickets", json=body)))


async def test_lengths(member: httpx2.AsyncClient, admin: httpx2.AsyncClient):
    assert messages(await member.post("/cabinet/tickets", json={"title": "ab", "message": "long enough"}))
    too_long = {"title": "Help", "message": "x" * 4001}
    assert messages(await member.post("/cabinet/tickets", json=too_long))
    items = [{"type": "photo", "file_id": f"AgAD_file_{n:08d}"} for n in range(11)]
    assert messages(await member.post("/cabinet/tickets", json={"title": "Help", "media_items": items}))
    tid = (await open_ticket(member))["id"]
    assert messages(await admin.post(f"{ADMIN}/{tid}/reply", json={"message": ""}))


async def test_refusals(
    member: httpx2.AsyncClient,
    admin: httpx2.AsyncClient,
    client: httpx2.AsyncClient,
    make_user: Any,
    cabinet: Any,
):
    tid = (await open_ticket(member))["id"]
    assert (
        detail(await client.post(f"/tickets/{tid}/status", json={"status": "solved"}), 400)
        == "Invalid ticket status"
    )
    assert (
        detail(await client.post(f"/tickets/{tid}/priority", json={"priority": "asap"}), 400)
        == "Invalid priority"
    )
    admin_status = await admin.post(f"{ADMIN}/{tid}/status", json={"status": "solved"})
    assert detail(admin_status, 400) == "Invalid status. Allowed: open, answered, pending, closed"
    admin_priority = await admin.post(f"{ADMIN}/{tid}/priority", json={"priority": "asap"})
    assert detail(admin_priority, 400) == "Invalid priority. Allowed: low, normal, high, urgent"
    empty = await client.post(f"/tickets/{tid}/reply", json={"message_text": "   "})
    assert detail(empty, 400) == "Message text or media is required"
    assert (await client.get("/tickets", params={"status": "solved"})).status_code == 422
    for answer in (
        await client.get("/tickets/999999"),
        await admin.get(f"{ADMIN}/999999"),
        await admin.post(f"{ADMIN}/999999/reply", json={"message": "Hi"}),
        await client.post("/tickets/999999/reply", json={"message_text": "Hi"}),
        await member.get("/cabinet/tickets/999999"),
    ):
        assert detail(answer, 404) == "Ticket not found"
    # another user's ticket is not found either
    other = await make_user(username="other")
    async with cabinet(other.id) as stranger:
        assert detail(await stranger.get(f"/cabinet/tickets/{tid}"), 404) == "Ticket not found"
        message = {"message": "Not mine"}
        assert (
            detail(await stranger.post(f"/cabinet/tickets/{tid}/messages", json=message), 404)
            == "Ticket not found"
        )


async def test_media_of_a_message_not_found(member: httpx2.AsyncClient, client: httpx2.AsyncClient):
    created = await open_ticket(member)
    tid, mid = created["id"], created["messages"][0]["id"]
    assert (
        detail(await client.get(f"/tickets/{tid}/messages/{mid}/media"), 404)
        == "Media not found for this message"
    )
    assert detail(await client.get(f"/tickets/{tid}/messages/999999/media"), 404) == "Message not found"
    assert detail(await client.get(f"/tickets/999999/messages/{mid}/media"), 404) == "Ticket not found"

"""Live pushes on ``/cabinet/ws`` after the commit (a real uvicorn and WebSocket client)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from .conftest import admin_reply, user_message


async def receive(ws: ClientConnection, seconds: float = 5.0) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), seconds))


async def test_pushes_reach_administrators_and_the_owner(
    app, base, admin, member, admin_user, member_user, admin_token, user_token, open_ticket
):
    async with (
        connect(f"{base}/cabinet/ws?token={admin_token}") as admin_ws,
        connect(f"{base}/cabinet/ws?token={user_token}") as user_ws,
    ):
        assert (await receive(admin_ws))["type"] == "connected"
        assert (await receive(user_ws))["type"] == "connected"
        ticket = await open_ticket(title="Live", message="First")
        assert await receive(admin_ws) == {
            "type": "ticket.new",
            "ticket_id": ticket["id"],
            "title": "Live",
            "message": "First",
        }
        await admin_reply(admin, ticket["id"], "Answer")
        assert await receive(user_ws) == {
            "type": "ticket.admin_reply",
            "ticket_id": ticket["id"],
            "title": "Live",
            "message": "Answer",
        }
        await user_message(member, ticket["id"], "Thanks")
        assert (await receive(admin_ws))["type"] == "ticket.user_reply"


async def test_no_push_when_switched_off(
    app, base, admin, admin_user, member_user, user_token, configure, open_ticket
):
    await configure(cabinet_user_notifications_enabled=False)
    async with connect(f"{base}/cabinet/ws?token={user_token}") as user_ws:
        assert (await receive(user_ws))["type"] == "connected"
        ticket = await open_ticket()
        await admin_reply(admin, ticket["id"], "Answer")
        await user_ws.send(json.dumps({"type": "ping"}))
        assert (await receive(user_ws))["type"] == "pong"  # nothing came before the pong

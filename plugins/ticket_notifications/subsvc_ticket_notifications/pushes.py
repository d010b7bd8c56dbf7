"""Live pushes to the cabinet's sockets, after the commit: an administrator's reply to the
ticket's owner, new tickets and users' messages to the administrators (``/cabinet/ws``).
Sent when the matching in-app notifications are on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.applications import Starlette
from subsvc_support.api import support_config
from subsvc_tickets.api import MESSAGE_ADDED, TICKET_CREATED

from subsvc.events import Event
from subsvc.services import services
from subsvc_ticket_notifications import texts

NEW, ADMIN_REPLY, USER_REPLY = "ticket.new", "ticket.admin_reply", "ticket.user_reply"


def message(kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A flat socket message: the type, the ticket and what was written."""
    return {
        "type": kind,
        "ticket_id": payload["ticket_id"],
        "title": payload["title"],
        "message": texts.cut(texts.message_text(payload), texts.IN_APP_TEXT),
    }


def subscribe(app: Starlette) -> None:
    kernel = services(app)

    async def on_created(event: Event) -> None:
        if (await support_config(app)).cabinet_admin_notifications_enabled:
            await kernel.realtime.send_to_cabinet_admins(message(NEW, event.payload))

    async def on_message(event: Event) -> None:
        config = await support_config(app)
        payload = event.payload
        if payload["is_from_admin"]:
            if config.cabinet_user_notifications_enabled:
                await kernel.realtime.send_to_user(payload["user_id"], message(ADMIN_REPLY, payload))
        elif config.cabinet_admin_notifications_enabled:
            await kernel.realtime.send_to_cabinet_admins(message(USER_REPLY, payload))

    kernel.events.subscribe(TICKET_CREATED, on_created)
    kernel.events.subscribe(MESSAGE_ADDED, on_message)

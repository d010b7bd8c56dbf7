"""What the notifications say: in-app texts (plain) and messenger texts (HTML, every piece of
user text escaped). Pure functions, no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from subsvc_ticket_notifications.models import NEW_TICKET

IN_APP_TITLE = 50
IN_APP_TEXT = 100
ALERT_TITLE = 60
PREVIEW = 500
NO_TEXT = "[media]"


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with ``...`` when something was cut."""
    return text if len(text) <= limit else text[:limit] + "..."


def message_text(payload: Mapping[str, Any]) -> str:
    """A message's text: its text, else its media caption, else ``[media]``."""
    text = (payload.get("message_text") or "").strip() or (payload.get("media_caption") or "").strip()
    return text or NO_TEXT


def new_ticket(payload: Mapping[str, Any]) -> str:
    return f"New ticket #{payload['ticket_id']}: {payload['title'][:IN_APP_TITLE]}"


def user_reply(payload: Mapping[str, Any]) -> str:
    return f"Reply in ticket #{payload['ticket_id']}: {cut(message_text(payload), IN_APP_TEXT)}"


def admin_reply(payload: Mapping[str, Any]) -> str:
    return f"Reply to ticket #{payload['ticket_id']}: {cut(message_text(payload), IN_APP_TEXT)}"


@dataclass(frozen=True)
class Person:
    """Who wrote, as an administrators' alert names them."""

    user_id: int
    name: str = ""
    username: str | None = None
    messenger_id: int | None = None
    email: str | None = None

    def html(self) -> str:
        contact = (
            f"messenger id <code>{self.messenger_id}</code>"
            if self.messenger_id is not None
            else escape(self.email)
            if self.email
            else f"#{self.user_id}"
        )
        name = escape(self.name) or f"User #{self.user_id}"
        handle = f" (@{escape(self.username)})" if self.username else ""
        return f"{name}{handle}, {contact}"


def _media_line(payload: Mapping[str, Any]) -> str:
    media = payload.get("media_type")
    return f"\n<i>Attachment: {escape(str(media))}</i>" if media else ""


def user_notice(payload: Mapping[str, Any]) -> str:
    """The user's messenger notification of an administrator's reply."""
    preview = escape(cut(message_text(payload), PREVIEW))
    return f"💬 <b>Reply received for ticket #{payload['ticket_id']}</b>\n\n{preview}"


def admin_alert(kind: str, payload: Mapping[str, Any], author: Person) -> str:
    """The administrators' chat alert of a new ticket or of a user's message."""
    heading = "🎫 <b>New ticket" if kind == NEW_TICKET else "💬 <b>New message in ticket"
    title = escape(cut(payload["title"], ALERT_TITLE))
    preview = escape(cut(message_text(payload), PREVIEW))
    return (
        f"{heading} #{payload['ticket_id']}</b>\n"
        f"From: {author.html()}\n"
        f"Title: {title}\n\n"
        f"{preview}{_media_line(payload)}"
    )


def sla_alert(ticket_id: int, title: str, status: str, waiting_minutes: int) -> str:
    """The administrators' chat alert of a ticket waiting too long for an answer."""
    return (
        "⏰ <b>Answer wait exceeded</b>\n"
        f"Ticket #{ticket_id}: {escape(cut(title, ALERT_TITLE))}\n"
        f"Status: {escape(status)}\n"
        f"Waiting for {waiting_minutes} min"
    )

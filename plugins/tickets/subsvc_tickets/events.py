"""The events tickets publish (each once, in the transaction of the change) and their payloads."""

from __future__ import annotations

from pydantic import BaseModel

TICKET_CREATED = "ticket.created"
MESSAGE_ADDED = "ticket.message_added"
STATUS_CHANGED = "ticket.status_changed"


class TicketCreated(BaseModel):
    """A user opened a ticket with its first message."""

    ticket_id: int
    user_id: int
    title: str
    priority: str
    message_id: int
    message_text: str
    media_type: str | None = None
    media_file_id: str | None = None


class TicketMessageAdded(BaseModel):
    """A message was added to a ticket: by its owner, or (``is_from_admin``) by support."""

    ticket_id: int
    user_id: int  # the ticket's owner
    title: str
    message_id: int
    is_from_admin: bool
    author_user_id: int | None = None
    author_name: str | None = None
    message_text: str
    media_type: str | None = None
    media_file_id: str | None = None
    media_caption: str | None = None


class TicketStatusChanged(BaseModel):
    """A ticket's status changed (an explicit change, or an admin reply reopening it)."""

    ticket_id: int
    user_id: int
    title: str
    old_status: str
    new_status: str


EVENTS: dict[str, type[BaseModel]] = {
    TICKET_CREATED: TicketCreated,
    MESSAGE_ADDED: TicketMessageAdded,
    STATUS_CHANGED: TicketStatusChanged,
}

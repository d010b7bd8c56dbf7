"""Wire models of the three areas (fields as the OpenAPI contract, 3.36 plus 4.1.0's media)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from subsvc_tickets.service import Content

MEDIA_TYPES = ("photo", "video", "document")
MAX_MEDIA_ITEMS = 10
TEXT_LENGTH = 4000
CAPTION_LENGTH = 1000
FILE_ID_LENGTH = 255


class TicketMediaItem(BaseModel):
    """One attachment of a message (``token``: a signed download token, in answers only)."""

    type: str = Field(description="Media type: photo, video, or document")
    file_id: str = Field(max_length=FILE_ID_LENGTH, description="Messenger file id")
    caption: str | None = Field(default=None, max_length=CAPTION_LENGTH, description="Optional caption")
    token: str | None = Field(default=None, description="Signed media download token (response only)")

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if value not in MEDIA_TYPES:
            raise ValueError(f"type must be one of: {', '.join(MEDIA_TYPES)}")
        return value


class MessageInput(BaseModel):
    """Text and media of a cabinet message: legacy single media and/or ``media_items``."""

    message: str = Field(default="", max_length=TEXT_LENGTH, description="Message text")
    media_type: str | None = Field(default=None, description="Media type: photo, video, document")
    media_file_id: str | None = Field(
        default=None, max_length=FILE_ID_LENGTH, description="Uploaded media's file id"
    )
    media_caption: str | None = Field(default=None, max_length=CAPTION_LENGTH, description="Media caption")
    media_items: list[TicketMediaItem] | None = Field(
        default=None, max_length=MAX_MEDIA_ITEMS, description="Multi-media attachments"
    )

    @model_validator(mode="after")
    def _media(self) -> MessageInput:
        if self.media_items is not None and not self.media_items:
            raise ValueError("media_items must not be empty (send null instead)")
        if (self.media_type is None) != (self.media_file_id is None):
            raise ValueError("media_type and media_file_id must be given together")
        if self.media_type is not None and self.media_type not in MEDIA_TYPES:
            raise ValueError(f"media_type must be one of: {', '.join(MEDIA_TYPES)}")
        if self.media_items and self.media_file_id is not None:
            first = self.media_items[0]
            if (first.type, first.file_id) != (self.media_type, self.media_file_id):
                raise ValueError("media_type and media_file_id must match media_items[0]")
        if not self.message.strip() and self.media_file_id is None and not self.media_items:
            raise ValueError("message or media is required")
        return self

    def content(self) -> Content:
        items = (
            [item.model_dump(exclude={"token"}) for item in self.media_items] if self.media_items else None
        )
        return Content(
            text=self.message.strip(),
            media_type=self.media_type,
            media_file_id=self.media_file_id,
            media_caption=self.media_caption,
            media_items=items,
        )


class TicketCreateRequest(MessageInput):
    """Request to create a new ticket."""

    title: str = Field(min_length=3, max_length=255, description="Ticket title")

    @field_validator("title")
    @classmethod
    def _trimmed_title(cls, value: str) -> str:
        value = value.strip()
        if len(value) < 3:
            raise ValueError("title must have at least 3 characters besides spaces")
        return value


class TicketMessageCreateRequest(MessageInput):
    """Request to add a message to a ticket."""


class AdminReplyRequest(MessageInput):
    """Admin reply to a ticket."""


class AdminStatusUpdateRequest(BaseModel):
    status: str = Field(description="New status: open, answered, pending, closed")


class AdminPriorityUpdateRequest(BaseModel):
    priority: str = Field(description="New priority: low, normal, high, urgent")


# --- cabinet answers ---------------------------------------------------------------------------


class TicketMessageResponse(BaseModel):
    """A ticket message as the cabinet shows it (tokens: signed downloads, valid 24 h)."""

    id: int
    message_text: str
    is_from_admin: bool
    has_media: bool = False
    media_type: str | None = None
    media_file_id: str | None = None
    media_token: str | None = None
    media_caption: str | None = None
    media_items: list[TicketMediaItem] | None = None
    created_at: datetime


class TicketFields(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    title: str
    status: str
    priority: str
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None = None


class TicketResponse(TicketFields):
    """A ticket in the user's list."""

    messages_count: int = 0
    last_message: TicketMessageResponse | None = None


class TicketListResponse(BaseModel):
    items: list[TicketResponse]
    total: int
    page: int
    per_page: int
    pages: int


class TicketDetailResponse(TicketFields):
    """A ticket with its messages; ``is_reply_blocked``: whether the owner may not write now."""

    is_reply_blocked: bool = False
    messages: list[TicketMessageResponse] = []


class AdminTicketUserInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    messenger_id: int | None = None
    email: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None


class AdminTicketResponse(TicketResponse):
    user: AdminTicketUserInfo | None = None


class AdminTicketListResponse(BaseModel):
    items: list[AdminTicketResponse]
    total: int
    page: int
    per_page: int
    pages: int


class AdminTicketDetailResponse(TicketDetailResponse):
    user: AdminTicketUserInfo | None = None


class AdminStatsResponse(BaseModel):
    total: int
    open: int
    pending: int
    answered: int
    closed: int


# --- Web API ---------------------------------------------------------------------------------


class TicketMediaItemResponse(BaseModel):
    type: str
    file_id: str
    caption: str | None = None


class WebTicketMessageResponse(BaseModel):
    """A message as the Web API shows it. ``user_id``: the author when a cabinet user wrote,
    else the ticket's owner; ``author_*`` say who wrote (a cabinet user, or an API token)."""

    id: int
    user_id: int
    message_text: str
    is_from_admin: bool
    has_media: bool
    media_type: str | None = None
    media_file_id: str | None = None
    media_caption: str | None = None
    media_items: list[TicketMediaItemResponse] | None = None
    created_at: datetime
    author_user_id: int | None = None
    author_token_id: int | None = None
    author_name: str | None = None


class WebTicketResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    user_id: int
    title: str
    status: str
    priority: str
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None = None
    user_reply_block_permanent: bool
    user_reply_block_until: datetime | None = None
    messages: list[WebTicketMessageResponse] = []


class TicketStatusUpdateRequest(BaseModel):
    status: str


class TicketPriorityUpdateRequest(BaseModel):
    priority: str


class TicketReplyBlockRequest(BaseModel):
    permanent: bool = False
    until: datetime | None = None


class TicketReplyRequest(BaseModel):
    message_text: str | None = Field(default=None, max_length=TEXT_LENGTH)
    media_type: str | None = Field(
        default=None, max_length=32, description="Media type (photo, video, document, ...)"
    )
    media_file_id: str | None = Field(default=None, max_length=FILE_ID_LENGTH)
    media_caption: str | None = Field(default=None, max_length=TEXT_LENGTH)


class TicketReplyResponse(BaseModel):
    ticket: WebTicketResponse
    message: WebTicketMessageResponse


class TicketMediaResponse(BaseModel):
    id: int
    ticket_id: int
    media_type: str
    media_file_id: str
    media_caption: str | None = None
    media_url: str | None = None


def media_items_of(raw: Any) -> list[dict[str, Any]] | None:
    """The stored ``media_items`` as a list of dicts (or ``None``)."""
    return [dict(item) for item in raw] if raw else None

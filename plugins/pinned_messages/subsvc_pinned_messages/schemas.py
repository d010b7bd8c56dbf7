"""The wire contract of pinned messages (the reference's shapes; extra fields marked)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MEDIA_PATTERN = r"^(photo|video)$"


class PinnedMessageMedia(BaseModel):
    """A photo or video by the messenger's file id (or a URL it can fetch)."""

    type: str = Field(pattern=MEDIA_PATTERN)
    file_id: str = Field(min_length=1, max_length=255)


class PinnedMessageCreateRequest(BaseModel):
    """A new message; it becomes the active one."""

    content: str = Field(min_length=1, max_length=4000)
    send_before_menu: bool = True
    send_on_every_start: bool = True
    media: PinnedMessageMedia | None = None


class CabinetPinnedMessageCreateRequest(PinnedMessageCreateRequest):
    """The cabinet's form also says whether to broadcast it at once."""

    broadcast: bool = False


class PinnedMessageUpdateRequest(BaseModel):
    """Fields to change (absent or null: unchanged); no broadcast."""

    content: str | None = Field(default=None, max_length=4000)
    send_before_menu: bool | None = None
    send_on_every_start: bool | None = None
    media: PinnedMessageMedia | None = None


class PinnedMessageSettingsRequest(BaseModel):
    """Only the display settings."""

    send_before_menu: bool | None = None
    send_on_every_start: bool | None = None


class PinnedMessageResponse(BaseModel):
    """A pinned message."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    content: str | None
    media_type: str | None = None
    media_file_id: str | None = None
    send_before_menu: bool
    send_on_every_start: bool
    is_active: bool
    created_by: int | None = None
    created_at: datetime
    updated_at: datetime | None = None


class PinnedMessageListResponse(BaseModel):
    """A page of messages, newest first."""

    items: list[PinnedMessageResponse]
    total: int
    limit: int
    offset: int


class PinnedMessageBroadcastResponse(BaseModel):
    """The message, and what its broadcast has done so far. The broadcast runs in the
    background: ``sent_count``/``failed_count`` are the counts when the answer was made (0 for a
    new one); ``broadcast_id`` (not in the reference) names the run whose progress
    ``GET .../pinned-messages/broadcasts/{broadcast_id}`` reports; null when nothing is sent."""

    message: PinnedMessageResponse
    sent_count: int = 0
    failed_count: int = 0
    broadcast_id: int | None = None
    total_count: int = Field(0, description="Not in the reference: the recipients the broadcast will reach.")


class PinnedMessageUnpinResponse(BaseModel):
    """The unpin of the active message: ``was_active`` says whether there was one. The unpin
    runs in the background: the counts are those when the answer was made; ``broadcast_id``
    (not in the reference) names the run."""

    unpinned_count: int = 0
    failed_count: int = 0
    was_active: bool
    broadcast_id: int | None = None
    total_count: int = 0


class PinnedMessageRunResponse(BaseModel):
    """Not in the reference: how far a broadcast (send and pin) or an unpin got."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    message_id: int | None
    kind: Literal["broadcast", "unpin"]
    status: Literal["queued", "running", "completed", "cancelled"]
    total_count: int
    sent_count: int = Field(description="Messages sent and pinned (unpin: chats unpinned).")
    failed_count: int = Field(description="Chats that failed, blocked ones included.")
    blocked_count: int = Field(description="Chats that refuse the bot.")
    created_by: int | None
    created_at: datetime
    started_at: datetime | None
    completed_at: datetime | None


class PinnedMessageRunFinished(BaseModel):
    """Event ``pinned_message.broadcast_finished``: a run completed or was cancelled."""

    broadcast_id: int
    message_id: int | None
    kind: str
    status: str
    total_count: int
    sent_count: int
    failed_count: int
    blocked_count: int

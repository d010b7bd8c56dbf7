"""The wire contract of `/broadcasts` and `/cabinet/admin/broadcasts`, and the progress event."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, Field, model_validator

from subsvc.api import Page

MessageText = Annotated[str, Field(min_length=1, max_length=4000)]
SendAt = Annotated[
    AwareDatetime | None,
    Field(
        description="Send at this moment (with a time zone) instead of now: the broadcast waits as "
        "`scheduled`."
    ),
]


Category = Annotated[
    str, Field(pattern=r"^(system|news|promo)$", description="system, news or promo: what the message is")
]
LINK_PREFIXES = ("http://", "https://", "tg://")


def _default_buttons() -> list[str]:
    return ["home"]


class CustomBroadcastButton(BaseModel):
    """Custom button for broadcast message: a ``callback`` the bot answers (1-64 bytes of
    callback data) or a ``url`` (http, https or tg link)."""

    label: Annotated[str, Field(min_length=1, max_length=64)]
    action_type: Literal["callback", "url"] = "callback"
    action_value: Annotated[str, Field(min_length=1, max_length=256)]
    icon_custom_emoji_id: Annotated[str | None, Field(pattern=r"^\d{1,64}$")] = None

    @model_validator(mode="after")
    def _check_action(self) -> CustomBroadcastButton:
        if self.action_type == "callback" and len(self.action_value.encode()) > 64:
            raise ValueError("callback action_value must be at most 64 bytes")
        if self.action_type == "url" and not self.action_value.startswith(LINK_PREFIXES):
            raise ValueError("url action_value must be an http://, https:// or tg:// link")
        return self


CustomButtons = Annotated[list[CustomBroadcastButton], Field(max_length=10)]


class BroadcastMedia(BaseModel):
    """A photo, video or document (the messenger's file id or a URL), captioned with ``caption``
    or else the message text."""

    type: Annotated[str, Field(pattern=r"^(photo|video|document)$")]
    # what the broadcast's column keeps; an empty one cannot be sent
    file_id: Annotated[str, Field(min_length=1, max_length=512)]
    caption: str | None = None


class BroadcastCreateRequest(BaseModel):
    target: str
    message_text: MessageText
    selected_buttons: list[str] = Field(default_factory=_default_buttons)
    media: BroadcastMedia | None = None
    send_at: SendAt = None
    custom_buttons: CustomButtons = Field(default_factory=list)
    category: Category = "system"


class CombinedBroadcastCreateRequest(BaseModel):
    """The cabinet's create: ``channel`` ``telegram`` (the messenger), ``email`` or ``both``."""

    channel: Literal["telegram", "email", "both"]
    target: str
    message_text: Annotated[str | None, Field(max_length=4000)] = None
    selected_buttons: list[str] = Field(default_factory=_default_buttons)
    media: BroadcastMedia | None = None
    email_subject: Annotated[str | None, Field(max_length=255)] = None
    email_html_content: Annotated[str | None, Field(max_length=100_000)] = None
    send_at: SendAt = None
    custom_buttons: CustomButtons = Field(default_factory=list)
    category: Category = "system"


class BroadcastResponse(BaseModel):
    """A broadcast with its counts (``failed_count`` includes ``blocked_count`` and
    ``unknown_count``)."""

    id: int
    target_type: str
    message_text: str | None
    has_media: bool
    media_type: str | None = None
    media_file_id: str | None = None
    media_caption: str | None = None
    total_count: int
    sent_count: int
    failed_count: int
    blocked_count: int = 0
    unknown_count: int = 0
    status: str
    admin_id: int | None = None
    admin_name: str | None = None
    created_at: datetime
    send_at: datetime | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    progress_percent: float = 0.0
    channel: str = "telegram"
    email_subject: str | None = None
    email_html_content: str | None = None
    selected_buttons: list[str] = Field(default_factory=list)
    category: str = "system"


BroadcastListResponse = Page[BroadcastResponse]


class BroadcastFilter(BaseModel):
    key: str
    label: str
    count: int | None = None
    group: str | None = None


class TariffFilter(BaseModel):
    key: str
    label: str
    tariff_id: int
    count: int


class BroadcastFiltersResponse(BaseModel):
    filters: list[BroadcastFilter]
    tariff_filters: list[TariffFilter]
    custom_filters: list[BroadcastFilter]


class TariffForBroadcast(BaseModel):
    id: int
    name: str
    filter_key: str
    active_users_count: int


class BroadcastTariffsResponse(BaseModel):
    tariffs: list[TariffForBroadcast]


class BroadcastButton(BaseModel):
    key: str
    label: str
    default: bool = False


class BroadcastButtonsResponse(BaseModel):
    buttons: list[BroadcastButton]


class BroadcastPreviewRequest(BaseModel):
    target: str


class BroadcastPreviewResponse(BaseModel):
    target: str
    count: int


class EmailFilterItem(BaseModel):
    key: str
    label: str
    count: int
    group: str | None = None


class EmailFiltersResponse(BaseModel):
    filters: list[EmailFilterItem]
    total_with_email: int


class EmailPreviewRequest(BaseModel):
    target: str


class EmailPreviewResponse(BaseModel):
    target: str
    count: int


class BroadcastProgress(BaseModel):
    """Event ``broadcast.progress``: a broadcast's status and counts (published when its status
    changes, and at most every ``BROADCASTS_PROGRESS_SECONDS`` while it sends)."""

    broadcast_id: int
    status: str
    total_count: int
    sent_count: int
    failed_count: int
    blocked_count: int
    unknown_count: int
    progress_percent: float

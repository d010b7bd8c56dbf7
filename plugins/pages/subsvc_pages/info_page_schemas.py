"""The wire contract of the info pages (`/cabinet/info-pages`, `/cabinet/admin/info-pages`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

SLUG_PATTERN = r"^[a-z0-9\-]+$"
PAGE_TYPE_PATTERN = "^(page|faq)$"
TAB_PATTERN = "^(faq|rules|privacy|offer)$"
MODE_PATTERN = "^(bot|web|both)$"
Slug = Annotated[str, Field(min_length=1, max_length=200, pattern=SLUG_PATTERN)]
Icon = Annotated[str, Field(max_length=50)]


class InfoPageListItem(BaseModel):
    """Compact info page for list views."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    slug: str
    title: dict[str, str]
    page_type: str = "page"
    is_active: bool
    sort_order: int
    icon: str | None = None
    replaces_tab: str | None = None
    display_mode: str = "both"
    updated_at: datetime | None = None


class InfoPageResponse(InfoPageListItem):
    """Full info page response."""

    content: dict[str, str]
    created_at: datetime


class InfoPageCreateRequest(BaseModel):
    """Request to create an info page."""

    slug: Slug
    title: dict[str, str] = Field(default_factory=dict)
    content: dict[str, str] = Field(default_factory=dict)
    page_type: str = Field(default="page", pattern=PAGE_TYPE_PATTERN)
    is_active: bool = True
    sort_order: int = 0
    icon: Icon | None = None
    replaces_tab: str | None = Field(default=None, pattern=TAB_PATTERN)
    display_mode: str = Field(default="both", pattern=MODE_PATTERN)


class InfoPageUpdateRequest(BaseModel):
    """Request to update an info page (null or absent: unchanged)."""

    slug: Slug | None = None
    title: dict[str, str] | None = None
    content: dict[str, str] | None = None
    page_type: str | None = Field(default=None, pattern=PAGE_TYPE_PATTERN)
    is_active: bool | None = None
    sort_order: int | None = None
    icon: Icon | None = None
    replaces_tab: str | None = Field(default=None, pattern=TAB_PATTERN)
    display_mode: str | None = Field(default=None, pattern=MODE_PATTERN)


class ReorderItem(BaseModel):
    """Single item in a reorder request."""

    id: int
    sort_order: int = Field(ge=0)


class ReorderRequest(BaseModel):
    """Request to bulk-reorder info pages."""

    items: list[ReorderItem] = Field(min_length=1)

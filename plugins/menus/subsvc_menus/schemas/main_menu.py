"""The main menu's extra buttons and messages (`/main-menu`)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from subsvc.api import Page

ActionType = Literal["url", "mini_app"]
Visibility = Literal["all", "admins", "subscribers"]


class MainMenuButtonCreateRequest(BaseModel):
    text: str = Field(min_length=1, max_length=64)
    action_type: ActionType
    action_value: str = Field(min_length=1, max_length=1024)
    visibility: Visibility = "all"
    is_active: bool = True
    display_order: int | None = Field(None, ge=0, description="Default: after the last button")


class MainMenuButtonUpdateRequest(BaseModel):
    """Fields to change; null or absent stays."""

    text: str | None = Field(None, min_length=1, max_length=64)
    action_type: ActionType | None = None
    action_value: str | None = Field(None, min_length=1, max_length=1024)
    visibility: Visibility | None = None
    is_active: bool | None = None
    display_order: int | None = Field(None, ge=0)


class MainMenuButtonResponse(BaseModel):
    id: int
    text: str
    action_type: ActionType
    action_value: str
    visibility: Visibility
    is_active: bool
    display_order: int
    created_at: datetime
    updated_at: datetime


class MainMenuButtonListResponse(Page[MainMenuButtonResponse]):
    pass


class UserMessageCreateRequest(BaseModel):
    message_text: str = Field(min_length=1, max_length=4000)
    is_active: bool = True
    sort_order: int = Field(0, ge=0)


class UserMessageUpdateRequest(BaseModel):
    """Fields to change; null or absent stays."""

    message_text: str | None = Field(None, min_length=1, max_length=4000)
    is_active: bool | None = None
    sort_order: int | None = Field(None, ge=0)


class UserMessageResponse(BaseModel):
    id: int
    message_text: str
    is_active: bool
    sort_order: int
    created_by: int | None
    created_at: datetime
    updated_at: datetime


class UserMessageListResponse(Page[UserMessageResponse]):
    pass

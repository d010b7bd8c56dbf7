"""The wire contract of `/welcome-texts`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from subsvc.api import Page

Text = Annotated[str, Field(min_length=1, max_length=4000)]


class WelcomeTextCreateRequest(BaseModel):
    text: Text
    is_enabled: bool = True
    is_active: bool = True


class WelcomeTextUpdateRequest(BaseModel):
    """Only the fields sent change (null: unchanged)."""

    text: Text | None = None
    is_enabled: bool | None = None
    is_active: bool | None = None


class WelcomeTextResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from the record: text <- text_content

    id: int
    text: str = Field(validation_alias="text_content")
    is_active: bool
    is_enabled: bool
    created_by: int | None
    created_at: datetime
    updated_at: datetime


WelcomeTextListResponse = Page[WelcomeTextResponse]

"""The cabinet's menu (`/cabinet/admin/menu-layout`) and its button styles
(`/cabinet/admin/button-styles`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ButtonSectionConfig(BaseModel):
    """How one builtin section's button looks."""

    style: str = "primary"
    icon_custom_emoji_id: str = ""
    enabled: bool = True
    labels: dict[str, str] = Field(default_factory=dict)


class ButtonSectionUpdate(BaseModel):
    """Fields of one section to change (null or absent stays; an empty label removes it)."""

    model_config = ConfigDict(extra="forbid")

    style: str | None = None
    icon_custom_emoji_id: str | None = Field(None, max_length=100)
    enabled: bool | None = None
    labels: dict[str, str] | None = None


class ButtonStylesResponse(BaseModel):
    """Every section's button style."""

    home: ButtonSectionConfig
    subscription: ButtonSectionConfig
    balance: ButtonSectionConfig
    referral: ButtonSectionConfig
    support: ButtonSectionConfig
    info: ButtonSectionConfig
    admin: ButtonSectionConfig


class ButtonStylesUpdate(BaseModel):
    """Only the sections to change."""

    model_config = ConfigDict(extra="forbid")

    home: ButtonSectionUpdate | None = None
    subscription: ButtonSectionUpdate | None = None
    balance: ButtonSectionUpdate | None = None
    referral: ButtonSectionUpdate | None = None
    support: ButtonSectionUpdate | None = None
    info: ButtonSectionUpdate | None = None
    admin: ButtonSectionUpdate | None = None


class ButtonConfig(BaseModel):
    """A button of the cabinet's menu: a builtin section or a custom link (id ``custom_*``)."""

    id: str = Field(max_length=100)
    type: Literal["builtin", "custom"]
    style: str = Field("primary", max_length=20)
    icon_custom_emoji_id: str = Field("", max_length=100)
    enabled: bool = True
    labels: dict[str, str] = Field(default_factory=dict)
    url: str | None = Field(None, max_length=2048)
    open_in: Literal["external", "webapp"] = "external"


class RowConfig(BaseModel):
    id: str = Field(max_length=100)
    max_per_row: int = Field(2, ge=1, le=3)
    buttons: list[ButtonConfig] = Field(default_factory=list)


class MenuConfigResponse(BaseModel):
    rows: list[RowConfig]


class MenuConfigUpdateRequest(BaseModel):
    rows: list[RowConfig]

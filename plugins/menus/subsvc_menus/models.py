"""Tables of the menus plugin: the main menu's extra buttons and messages, the JSON documents
(bot layout, cabinet layout, button styles), the layout's history and the click log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db.types import UTCDateTime, utcnow

# An autoincrementing 64-bit key (SQLite's rowid alias must be declared INTEGER).
BigId = BigInteger().with_variant(Integer(), "sqlite")


class MainMenuButton(SQLModel, table=True):
    """An extra button of the bot's main menu: a link or a Mini App."""

    __tablename__ = "main_menu_buttons"
    __table_args__ = (Index("ix_main_menu_buttons_display_order_id", "display_order", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    text: str = Field(sa_type=String(64))
    action_type: str = Field(sa_type=String(20))
    action_value: str = Field(sa_type=String(1024))
    visibility: str = Field(default="all", sa_type=String(20))
    is_active: bool = True
    display_order: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class UserMessage(SQLModel, table=True):
    """A message shown with the main menu (HTML the messenger accepts)."""

    __tablename__ = "user_messages"
    __table_args__ = (Index("ix_user_messages_sort_order_id", "sort_order", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    message_text: str = Field(sa_type=Text)
    is_active: bool = True
    sort_order: int = 0
    created_by: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class MenuDocument(SQLModel, table=True):
    """One JSON document (``bot_layout``, ``cabinet_layout``, ``button_styles``); ``data``
    null means the defaults. ``revision`` counts changes; bumping it is the row's write lock."""

    __tablename__ = "menu_documents"

    key: str = Field(primary_key=True, sa_type=String(50))
    data: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    revision: int = 0
    updated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class MenuLayoutHistory(SQLModel, table=True):
    """The bot layout as a change left it."""

    __tablename__ = "menu_layout_history"
    __table_args__ = (Index("ix_menu_layout_history_created_at", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    action: str = Field(sa_type=String(50))
    changes_summary: str = Field(default="", sa_type=Text)
    user_info: str | None = Field(default=None, sa_type=String(255))
    config: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ButtonClick(SQLModel, table=True):
    """One click on a menu button."""

    __tablename__ = "menu_button_clicks"
    __table_args__ = (
        Index("ix_menu_button_clicks_clicked_at", "clicked_at"),
        Index("ix_menu_button_clicks_button_id_clicked_at", "button_id", "clicked_at"),
        Index("ix_menu_button_clicks_user_id_clicked_at", "user_id", "clicked_at"),
    )

    id: int | None = Field(default=None, sa_column=Column(BigId, primary_key=True, autoincrement=True))
    button_id: str = Field(sa_type=String(100))
    user_id: int | None = Field(default=None, sa_type=BigInteger)
    callback_data: str | None = Field(default=None, sa_type=String(255))
    button_type: str | None = Field(default=None, sa_type=String(20))
    button_text: str | None = Field(default=None, sa_type=String(255))
    clicked_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


MODELS: list[type[SQLModel]] = [MainMenuButton, UserMessage, MenuDocument, MenuLayoutHistory, ButtonClick]

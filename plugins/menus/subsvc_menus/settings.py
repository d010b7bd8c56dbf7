"""Settings of the menus plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field, field_validator

from subsvc.settings import CommaList, PluginSettings, _split_commas


class MenusSettings(PluginSettings):
    """The menu constructor's switch, its history length and the bot's languages."""

    MENU_LAYOUT_ENABLED: bool = Field(
        True, description="The bot builds its main menu from the layout constructor (`is_enabled`)."
    )
    MENUS_HISTORY_KEEP: int = Field(
        200, ge=1, le=10_000, description="Menu layout history entries kept (older ones are deleted)."
    )
    MENUS_CLICKS_KEEP_DAYS: int = Field(
        400, ge=0, description="Clicks older than this many days are deleted (hourly); 0 keeps them all."
    )
    MENUS_LOCALES: CommaList = Field(
        default_factory=lambda: ["ru", "en", "ua", "zh", "fa"],
        description="Comma list of the bot's languages: the locales cabinet button labels may use.",
    )

    _lists = field_validator("MENUS_LOCALES", mode="before")(_split_commas)

"""Settings of the recurrent plugin (read from the environment like core's)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from subsvc.settings import PluginSettings


class RecurrentSettings(PluginSettings):
    """Where the recurring-payments terms are shown, and their text."""

    RECURRENT_PAYMENTS_DISPLAY_MODE: Literal["bot", "web", "both"] = Field(
        "both",
        description="Where the recurring-payments terms are shown: `web` or `both` serve them at "
        "`/cabinet/info/recurrent-payments`, `bot` only in the bot (the cabinet answers 404).",
    )
    RECURRENT_PAYMENTS_TEXT: str | None = Field(
        None,
        description="The recurring-payments terms (HTML as the bot shows it), one text for every "
        "language; unset: the cabinet answers 404.",
    )

"""Settings of the support plugin: the defaults of the support configuration (read from the
environment like core's). Once the administrators change a value it is stored and wins."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from subsvc.settings import CommaIntList, PluginSettings, _split_commas

SLA_MINUTES = (1, 1440)
SLA_CHECK_INTERVAL_SECONDS = (30, 600)
SLA_REMINDER_COOLDOWN_MINUTES = (1, 120)


class SupportSettings(PluginSettings):
    """Defaults of every value of :class:`subsvc_support.api.SupportConfig`, and the contact."""

    SUPPORT_SYSTEM_MODE: Literal["tickets", "contact", "both"] = Field(
        "both",
        description="How users reach support: `tickets` (in-app tickets), `contact` (the "
        "`SUPPORT_USERNAME` contact only) or `both`.",
    )
    SUPPORT_MENU_ENABLED: bool = Field(True, description="Show the support entry in the bot's menu.")
    SUPPORT_USERNAME: str | None = Field(
        None,
        max_length=255,
        description="The support contact: a messenger `@username` (linked through "
        "`SUPPORT_MESSENGER_LINK_BASE`) or any URL.",
    )
    SUPPORT_MESSENGER_LINK_BASE: str = Field(
        "https://t.me/", min_length=1, description="A messenger username's link is this plus the name."
    )
    SUPPORT_MODERATOR_IDS: CommaIntList = Field(
        default_factory=list, description="Comma list of messenger ids of support moderators."
    )
    SUPPORT_INFO_TEXTS: dict[str, str] = Field(
        default_factory=dict,
        description='The support info text per language, a JSON object (`{"ru": "...", "en": "..."}`).',
    )
    SUPPORT_ADMIN_TICKET_NOTIFICATIONS_ENABLED: bool = Field(
        True, description="Alert the administrators' chat in the messenger about new tickets and messages."
    )
    SUPPORT_USER_TICKET_NOTIFICATIONS_ENABLED: bool = Field(
        True, description="Notify a user in the messenger when support answers a ticket."
    )
    SUPPORT_CABINET_USER_NOTIFICATIONS_ENABLED: bool = Field(
        True, description="Write in-app ticket notifications for users."
    )
    SUPPORT_CABINET_ADMIN_NOTIFICATIONS_ENABLED: bool = Field(
        True, description="Write in-app ticket notifications for administrators."
    )
    SUPPORT_TICKET_SLA_ENABLED: bool = Field(
        True, description="Remind the administrators of tickets waiting for support too long."
    )
    SUPPORT_TICKET_SLA_MINUTES: int = Field(
        5,
        ge=SLA_MINUTES[0],
        le=SLA_MINUTES[1],
        description="A ticket waits too long after this many minutes.",
    )
    SUPPORT_TICKET_SLA_CHECK_INTERVAL_SECONDS: int = Field(
        60,
        ge=SLA_CHECK_INTERVAL_SECONDS[0],
        le=SLA_CHECK_INTERVAL_SECONDS[1],
        description="How often waiting tickets are checked.",
    )
    SUPPORT_TICKET_SLA_REMINDER_COOLDOWN_MINUTES: int = Field(
        30,
        ge=SLA_REMINDER_COOLDOWN_MINUTES[0],
        le=SLA_REMINDER_COOLDOWN_MINUTES[1],
        description="At most one reminder per ticket in this many minutes.",
    )
    SUPPORT_CONFIG_CACHE_SECONDS: float = Field(
        60.0,
        ge=0,
        description="How long an instance trusts the configuration from memory; every change "
        "drops it at once on every instance (0 = read it each time).",
    )

    _lists = field_validator("SUPPORT_MODERATOR_IDS", mode="before")(_split_commas)

    @field_validator("SUPPORT_SYSTEM_MODE", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

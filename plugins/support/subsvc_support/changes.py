"""What may be changed in the support configuration, checked before it is stored."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from subsvc_support.config import SupportMode
from subsvc_support.settings import (
    SLA_CHECK_INTERVAL_SECONDS,
    SLA_MINUTES,
    SLA_REMINDER_COOLDOWN_MINUTES,
)

MessengerId = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
Language = Annotated[str, Field(min_length=1, max_length=16)]


class SupportChanges(BaseModel):
    """Values to store; a field left out (or ``None``) keeps its current value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system_mode: SupportMode | None = None
    menu_enabled: bool | None = None
    info_texts: dict[Language, Annotated[str, Field(max_length=4000)]] | None = None
    moderators: list[MessengerId] | None = Field(default=None, max_length=1000)
    admin_ticket_notifications_enabled: bool | None = None
    user_ticket_notifications_enabled: bool | None = None
    cabinet_user_notifications_enabled: bool | None = None
    cabinet_admin_notifications_enabled: bool | None = None
    sla_enabled: bool | None = None
    sla_minutes: int | None = Field(default=None, ge=SLA_MINUTES[0], le=SLA_MINUTES[1])
    sla_check_interval_seconds: int | None = Field(
        default=None, ge=SLA_CHECK_INTERVAL_SECONDS[0], le=SLA_CHECK_INTERVAL_SECONDS[1]
    )
    sla_reminder_cooldown_minutes: int | None = Field(
        default=None, ge=SLA_REMINDER_COOLDOWN_MINUTES[0], le=SLA_REMINDER_COOLDOWN_MINUTES[1]
    )

    def values(self) -> dict[str, object]:
        """The fields to write (those given, not ``None``)."""
        return self.model_dump(exclude_none=True)

"""The support configuration as the other plugins see it: the environment's defaults with the
stored values over them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Literal

from subsvc_support.models import SupportSettingsRow
from subsvc_support.settings import SupportSettings

SupportMode = Literal["tickets", "contact", "both"]
MODES: tuple[SupportMode, ...] = ("tickets", "contact", "both")
TICKET_MODES = frozenset({"tickets", "both"})


@dataclass(frozen=True)
class SupportConfig:
    """Everything that decides how support works, as it is now."""

    system_mode: SupportMode
    menu_enabled: bool
    info_texts: Mapping[str, str]  # language -> text (read-only)
    moderators: tuple[int, ...]  # messenger ids
    admin_ticket_notifications_enabled: bool  # messenger alerts to the admin chat
    user_ticket_notifications_enabled: bool  # messenger notification to the user on an admin reply
    cabinet_user_notifications_enabled: bool  # in-app rows for users
    cabinet_admin_notifications_enabled: bool  # in-app rows for admins
    sla_enabled: bool
    sla_minutes: int
    sla_check_interval_seconds: int
    sla_reminder_cooldown_minutes: int

    @property
    def tickets_enabled(self) -> bool:
        """Users may open tickets (mode ``tickets`` or ``both``)."""
        return self.system_mode in TICKET_MODES


FIELDS = tuple(f.name for f in fields(SupportConfig))


def defaults(settings: SupportSettings) -> dict[str, Any]:
    """The configuration from the environment alone."""
    return {
        "system_mode": settings.SUPPORT_SYSTEM_MODE,
        "menu_enabled": settings.SUPPORT_MENU_ENABLED,
        "info_texts": settings.SUPPORT_INFO_TEXTS,
        "moderators": settings.SUPPORT_MODERATOR_IDS,
        "admin_ticket_notifications_enabled": settings.SUPPORT_ADMIN_TICKET_NOTIFICATIONS_ENABLED,
        "user_ticket_notifications_enabled": settings.SUPPORT_USER_TICKET_NOTIFICATIONS_ENABLED,
        "cabinet_user_notifications_enabled": settings.SUPPORT_CABINET_USER_NOTIFICATIONS_ENABLED,
        "cabinet_admin_notifications_enabled": settings.SUPPORT_CABINET_ADMIN_NOTIFICATIONS_ENABLED,
        "sla_enabled": settings.SUPPORT_TICKET_SLA_ENABLED,
        "sla_minutes": settings.SUPPORT_TICKET_SLA_MINUTES,
        "sla_check_interval_seconds": settings.SUPPORT_TICKET_SLA_CHECK_INTERVAL_SECONDS,
        "sla_reminder_cooldown_minutes": settings.SUPPORT_TICKET_SLA_REMINDER_COOLDOWN_MINUTES,
    }


def combine(settings: SupportSettings, row: SupportSettingsRow | None) -> SupportConfig:
    """The defaults with every value the row sets over them."""
    values = defaults(settings)
    if row is not None:
        values.update({name: getattr(row, name) for name in FIELDS if getattr(row, name) is not None})
        if values["system_mode"] not in MODES:  # never written by us; the default stands
            values["system_mode"] = settings.SUPPORT_SYSTEM_MODE
    return SupportConfig(
        **{
            **values,
            "info_texts": MappingProxyType({str(k): str(v) for k, v in dict(values["info_texts"]).items()}),
            "moderators": tuple(int(m) for m in values["moderators"]),
        }
    )

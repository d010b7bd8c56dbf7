"""What a subscription looks like in the panel: the panel user's name and fields, and whether
a panel user already shows them.

- Name: ``user_<messenger id>_<short_id>`` (``user_id<internal id>_<short_id>`` without a
  messenger id); the subscription's unique ``short_id`` is the suffix, so a panel user made
  by us is found again by its name (``short_id_of``).
- Status: ``DISABLED`` for a stored ``disabled`` or unpaid ``pending`` subscription, else
  ``ACTIVE`` (the panel itself marks users ``EXPIRED`` at ``expireAt`` and ``LIMITED`` at
  the traffic limit).
- Traffic: GiB to bytes (0 = unlimited), never reset by the panel (``NO_RESET``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from subsvc_panel.api import parse_time, utc

from subsvc.panel import GIB

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

ACTIVE = "ACTIVE"
DISABLED = "DISABLED"
DISABLED_STATUSES = frozenset({"disabled", "pending"})
USERNAME_PREFIX = "user_"
T = TypeVar("T", bound="DataclassInstance")


def from_row(kind: type[T], row: Any, **given: Any) -> T:
    """The dataclass ``kind`` from the row's columns of its fields' names, but for ``given``."""
    values = row._mapping
    return kind(**{f.name: values[f.name] for f in fields(kind) if f.name not in given}, **given)


@dataclass(frozen=True)
class Wanted:
    """One subscription as read for a push (a row of :data:`subsvc_panel_sync.queries`):
    its fields, what is asked of the panel after the push (``pending_actions``) and the links
    we have of it."""

    subscription_id: int
    user_id: int
    version: int
    panel_uuid: str | None
    status: str
    end_date: datetime
    traffic_limit_gb: int
    device_limit: int
    connected_squads: list[str]
    short_id: str
    messenger_id: int | None
    email: str | None
    pending_actions: int = 0
    subscription_url: str | None = None
    subscription_crypto_link: str | None = None

    @classmethod
    def of(cls, row: Any) -> Wanted:
        values = row._mapping
        return from_row(
            cls,
            row,
            version=values["version"] or 0,
            pending_actions=values["pending_actions"] or 0,
            connected_squads=list(values["connected_squads"] or []),
        )

    @property
    def username(self) -> str:
        return username_of(self.messenger_id, self.user_id, self.short_id)

    @property
    def panel_status(self) -> str:
        return DISABLED if self.status in DISABLED_STATUSES else ACTIVE

    def fields(self) -> dict[str, Any]:
        """The panel user's fields (without ``username``, which is set once at creation)."""
        fields: dict[str, Any] = {
            "status": self.panel_status,
            "expireAt": utc(self.end_date).isoformat(),
            "trafficLimitBytes": self.traffic_limit_gb * GIB,
            "trafficLimitStrategy": "NO_RESET",
            "hwidDeviceLimit": self.device_limit,
            "activeInternalSquads": sorted(set(self.connected_squads)),
            "description": f"subsvc user {self.user_id}, subscription {self.subscription_id}",
        }
        if self.messenger_id is not None:
            fields["telegramId"] = self.messenger_id
        if self.email:
            fields["email"] = self.email
        return fields

    def differences(self, panel_user: Mapping[str, Any]) -> list[str]:
        """The fields in which ``panel_user`` differs from this subscription (empty: in sync)."""
        found: list[str] = []
        enabled = str(panel_user.get("status") or "").upper() != DISABLED
        if enabled != (self.panel_status == ACTIVE):
            found.append("status")
        expire = parse_time(panel_user.get("expireAt"))
        if expire is None or abs((expire - utc(self.end_date)).total_seconds()) >= 1:
            found.append("expireAt")
        if _int(panel_user.get("trafficLimitBytes")) != self.traffic_limit_gb * GIB:
            found.append("trafficLimitBytes")
        if _int(panel_user.get("hwidDeviceLimit")) != self.device_limit:
            found.append("hwidDeviceLimit")
        if squads_of(panel_user) != sorted(set(self.connected_squads)):
            found.append("activeInternalSquads")
        return found


def username_of(messenger_id: int | None, user_id: int, short_id: str) -> str:
    """The name of a subscription's panel user."""
    owner = str(messenger_id) if messenger_id is not None else f"id{user_id}"
    return f"{USERNAME_PREFIX}{owner}_{short_id}"


def squads_of(panel_user: Mapping[str, Any]) -> list[str]:
    """The uuids of a panel user's internal squads (objects or plain uuids)."""
    squads = panel_user.get("activeInternalSquads") or []
    uuids = {s.get("uuid") if isinstance(s, Mapping) else s for s in squads}
    return sorted(u for u in uuids if isinstance(u, str))


def short_id_of(username: Any) -> str | None:
    """The ``short_id`` suffix of a panel user name made by this plugin, else ``None``."""
    if not isinstance(username, str) or not username.startswith(USERNAME_PREFIX):
        return None
    suffix = username.rpartition("_")[2]
    return suffix or None


def gib(value: Any) -> float:
    """Bytes to GiB."""
    return _int(value) / GIB


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return 0

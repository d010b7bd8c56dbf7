"""The port to the VPN panel: what the plugins that use the panel and the plugin that talks
to it agree on, so that neither imports the other.

A plugin that uses the panel (servers, tariffs, cabinet_admin_users, addons) declares a
``firstresult`` hook returning one facet of the panel — :class:`SquadsPanel`,
:class:`SquadAssignmentPanel`, :class:`AccountsPanel` or :class:`SubscriptionPanel` — and
finds it through a :class:`PanelHook`. The plugin that talks to the panel (``panel``) implements those hooks,
building the values below and raising :class:`PanelError` (its client's errors derive from
it). Without an implementation a user of the panel works and its panel operations answer
503 :data:`NOT_CONFIGURED`; a failure of the panel is a 502 :func:`failure_text`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Generic, Protocol, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import HTTPError

__all__ = [
    "GIB",
    "NOT_CONFIGURED",
    "RESPONSES",
    "AccountsPanel",
    "ExternalSquad",
    "NodeUsage",
    "PanelDevice",
    "PanelError",
    "PanelHook",
    "PanelSquad",
    "PanelUser",
    "PushOptions",
    "PushResult",
    "SquadAssignmentPanel",
    "SquadsPanel",
    "SubscriptionPanel",
    "SubscriptionRequest",
    "failure_text",
    "failures_as_502",
]

NOT_CONFIGURED = "VPN panel is not configured"
GIB = 1024**3
#: The statuses a panel operation adds to its OpenAPI ``responses``.
RESPONSES: Mapping[int, str] = {502: "The VPN panel failed", 503: NOT_CONFIGURED}


class PanelError(Exception):
    """The panel refused a request or did not answer; the message says what happened."""


def failure_text(exc: PanelError) -> str:
    """What an answer says about a failure of the panel."""
    return f"VPN panel error: {exc}"


@contextmanager
def failures_as_502() -> Iterator[None]:
    """A :class:`PanelError` inside is a 502 that says what the panel answered."""
    try:
        yield
    except PanelError as exc:
        raise HTTPError(502, failure_text(exc)) from None


# --- what the panel answers ----------------------------------------------------------------------


@dataclass(frozen=True)
class PanelSquad:
    """An internal squad as the panel lists it."""

    uuid: str
    name: str
    country_code: str | None = None


@dataclass(frozen=True)
class ExternalSquad:
    """An external squad of the panel."""

    uuid: str
    name: str
    members_count: int = 0


@dataclass(frozen=True)
class PanelUser:
    """The panel's account of a user."""

    uuid: str
    short_uuid: str | None = None
    username: str | None = None
    status: str | None = None  # ACTIVE, DISABLED, LIMITED, EXPIRED
    expire_at: datetime | None = None
    traffic_limit_bytes: int = 0
    used_traffic_bytes: int = 0
    lifetime_used_traffic_bytes: int = 0
    device_limit: int = 0
    subscription_url: str | None = None
    happ_link: str | None = None
    active_squads: Sequence[str] = ()
    trojan_password: str | None = None
    vless_uuid: str | None = None
    ss_password: str | None = None
    first_connected_at: datetime | None = None
    online_at: datetime | None = None
    last_connected_node_uuid: str | None = None
    last_connected_node_name: str | None = None


@dataclass(frozen=True)
class PanelDevice:
    hwid: str
    platform: str = ""
    device_model: str = ""
    created_at: str | None = None


@dataclass(frozen=True)
class SubscriptionRequest:
    """One request of an account's subscription link, as the panel logged it."""

    id: int
    request_at: datetime | None = None
    request_ip: str | None = None
    user_agent: str | None = None


@dataclass(frozen=True)
class NodeUsage:
    """Traffic of one node: the total and one figure per day of the period."""

    node_uuid: str
    node_name: str
    country_code: str = ""
    total_bytes: int = 0
    daily_bytes: Sequence[int] = ()


@dataclass(frozen=True)
class PushOptions:
    """Which parts of the subscription ``push`` writes to the panel."""

    create_if_missing: bool = True
    status: bool = True
    traffic_limit: bool = True
    expire_date: bool = True
    squads: bool = True


@dataclass(frozen=True)
class PushResult:
    """``action`` is ``created``, ``updated`` or ``no_changes``; ``changes`` what was written."""

    action: str
    panel_uuid: str | None
    changes: dict[str, object] = field(default_factory=dict)


# --- the facets: each user of the panel asks for the one it needs --------------------------------

UserT = TypeVar("UserT", contravariant=True)
SubscriptionT = TypeVar("SubscriptionT", contravariant=True)
PortT = TypeVar("PortT")


class SquadsPanel(Protocol):
    """The panel's internal squads (failures raise :class:`PanelError`)."""

    async def squads(self) -> Sequence[PanelSquad]: ...


class SquadAssignmentPanel(Protocol):
    """External squads, and the squads of a subscription's account. Failures raise
    :class:`PanelError`."""

    async def external_squads(self) -> Sequence[ExternalSquad]: ...

    async def set_squads(
        self, user_id: int, subscription_id: int, squads: Sequence[str], external_squad_uuid: str | None
    ) -> bool:
        """Give the panel account of this subscription (of user ``user_id``) exactly these
        internal squads and this external squad (``None`` removes it). ``False`` when the
        subscription has no panel account (nothing to change)."""
        ...


class AccountsPanel(Protocol[UserT, SubscriptionT]):
    """The panel operations on one user's account (found by the link we keep, by messenger
    id or by e-mail — the implementation decides); ``UserT`` and ``SubscriptionT`` are the
    users and subscriptions plugins' rows. Failures raise :class:`PanelError`."""

    async def find_user(self, user: UserT, panel_uuid: str | None) -> PanelUser | None: ...

    async def devices(self, panel_uuid: str) -> Sequence[PanelDevice]: ...

    async def delete_device(self, panel_uuid: str, hwid: str) -> bool: ...

    async def node_usage(self, panel_uuid: str, start: date, end: date) -> tuple[list[str], list[NodeUsage]]:
        """The day labels of the period and each node's usage (one figure per label)."""
        ...

    async def push(
        self, user: UserT, subscription: SubscriptionT, panel_uuid: str | None, options: PushOptions
    ) -> PushResult: ...

    async def request_history(self, panel_uuid: str) -> Sequence[SubscriptionRequest]:
        """The panel's log of the account's subscription-link requests, newest first, as
        much as the panel keeps (none for an account it does not know)."""
        ...

    async def disable_user(self, panel_uuid: str) -> bool: ...

    async def delete_user(self, panel_uuid: str) -> bool: ...


class SubscriptionPanel(Protocol):
    """The panel account of one subscription, for what its owner does directly (devices, a
    new subscription link, the traffic read now). Failures raise :class:`PanelError`.

    Changes of the subscription itself (limits, dates, squads, traffic and device resets)
    never go through here: they are queued with the change (``subscription.changed``)."""

    async def account(self, session: AsyncSession, subscription_id: int) -> PanelUser | None:
        """The subscription's account: by the uuid recorded for it, else by its name;
        ``None`` when the panel has none (yet). ``session`` is the caller's, for the lookup."""
        ...

    async def devices(self, panel_uuid: str) -> Sequence[PanelDevice]:
        """The account's devices, in the panel's order (none for an unknown account)."""
        ...

    async def delete_device(self, panel_uuid: str, hwid: str) -> bool:
        """Forget one device; ``False`` when the panel did not know it."""
        ...

    async def delete_all_devices(self, panel_uuid: str) -> int:
        """Forget every device of the account; how many there were."""
        ...

    async def revoke(self, panel_uuid: str) -> PanelUser:
        """Revoke the account's subscription link: the account with its new link."""
        ...


# --- finding the facet ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PanelHook(Generic[PortT]):
    """A plugin's ``firstresult`` hook ``<name>(app)`` answering its facet of the panel, or
    ``None`` where no panel is configured."""

    name: str

    async def find(self, app: Starlette) -> PortT | None:
        """The facet the installed panel answers, or ``None``."""
        found: PortT | None = await app.state.plugins.first_result(self.name, app=app)
        return found

    async def require(self, app: Starlette) -> PortT:
        """The facet the installed panel answers, or 503 ``VPN panel is not configured``."""
        found = await self.find(app)
        if found is None:
            raise HTTPError(503, NOT_CONFIGURED)
        return found

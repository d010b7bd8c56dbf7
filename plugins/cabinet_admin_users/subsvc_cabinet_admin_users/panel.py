"""The port to the VPN panel: what the administrators' panel operations need from it.

The panel plugin implements the ``cabinet_admin_panel`` hook and returns an object with these
methods (a :class:`PanelGateway`); it talks to the panel's REST API. This plugin keeps the
rules: which subscription is pushed, how the panel's answer changes our rows, what differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Protocol

from starlette.applications import Starlette
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.api import HTTPError

NOT_CONFIGURED = "VPN panel is not configured"
GIB = 1024**3


class PanelError(Exception):
    """The panel refused a request or did not answer; the message says what happened."""


def failure_text(exc: PanelError) -> str:
    """What an answer says about a failure of the panel."""
    return f"VPN panel error: {exc}"


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


class PanelGateway(Protocol):
    """The panel operations, each for one user of ours (found by the link we keep, by
    messenger id or by e-mail — the gateway decides). Failures raise :class:`PanelError`."""

    async def find_user(self, user: User, panel_uuid: str | None) -> PanelUser | None: ...

    async def devices(self, panel_uuid: str) -> Sequence[PanelDevice]: ...

    async def delete_device(self, panel_uuid: str, hwid: str) -> bool: ...

    async def node_usage(self, panel_uuid: str, start: date, end: date) -> tuple[list[str], list[NodeUsage]]:
        """The day labels of the period and each node's usage (one figure per label)."""
        ...

    async def push(
        self, user: User, subscription: Subscription, panel_uuid: str | None, options: PushOptions
    ) -> PushResult: ...

    async def disable_user(self, panel_uuid: str) -> bool: ...

    async def delete_user(self, panel_uuid: str) -> bool: ...


async def gateway(app: Starlette) -> PanelGateway | None:
    """The installed panel gateway, or ``None``."""
    found: PanelGateway | None = await app.state.plugins.first_result("cabinet_admin_panel", app=app)
    return found


async def require_gateway(app: Starlette) -> PanelGateway:
    """The installed panel gateway, or 503 ``VPN panel is not configured``."""
    found = await gateway(app)
    if found is None:
        raise HTTPError(503, NOT_CONFIGURED)
    return found

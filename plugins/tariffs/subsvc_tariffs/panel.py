"""The port to the VPN panel: what the tariff operations need from it.

The panel plugin implements the ``tariffs_panel`` hook and returns an object with these
methods (a :class:`TariffsPanel`) that talks to the panel's REST API. This plugin keeps the
rules: which subscriptions a squad sync touches, what it writes back, how failures count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from starlette.applications import Starlette

from subsvc.api import HTTPError

NOT_CONFIGURED = "VPN panel is not configured"


class PanelError(Exception):
    """The panel refused a request or did not answer; the message says what happened."""


@dataclass(frozen=True)
class ExternalSquad:
    """An external squad of the panel."""

    uuid: str
    name: str
    members_count: int = 0


class TariffsPanel(Protocol):
    """The panel operations of the tariff endpoints. Failures raise :class:`PanelError`."""

    async def external_squads(self) -> Sequence[ExternalSquad]: ...

    async def set_squads(
        self, user_id: int, subscription_id: int, squads: Sequence[str], external_squad_uuid: str | None
    ) -> bool:
        """Give the panel account of this subscription (of user ``user_id``) exactly these
        internal squads and this external squad (``None`` removes it). ``False`` when the
        subscription has no panel account (nothing to change)."""
        ...


async def gateway(app: Starlette) -> TariffsPanel | None:
    """The installed panel gateway, or ``None``."""
    found: TariffsPanel | None = await app.state.plugins.first_result("tariffs_panel", app=app)
    return found


async def require_gateway(app: Starlette) -> TariffsPanel:
    """The installed panel gateway, or 503 ``VPN panel is not configured``."""
    found = await gateway(app)
    if found is None:
        raise HTTPError(503, NOT_CONFIGURED)
    return found

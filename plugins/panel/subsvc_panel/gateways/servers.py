"""``servers_panel``: the panel's internal squads for the servers plugin's sync."""

from __future__ import annotations

from collections.abc import Sequence

from subsvc_servers.panel import PanelError, PanelSquad

from subsvc_panel.client import PanelClient
from subsvc_panel.gateways import client_errors_as


class ServersGateway:
    """:class:`subsvc_servers.panel.ServersPanel` over the client."""

    def __init__(self, panel: PanelClient) -> None:
        self.panel = panel

    async def squads(self) -> Sequence[PanelSquad]:
        with client_errors_as(PanelError):
            found = await self.panel.squads()
        return [
            PanelSquad(
                uuid=str(s.get("uuid") or ""),
                name=str(s.get("name") or ""),
                country_code=s.get("countryCode"),
            )
            for s in found
        ]

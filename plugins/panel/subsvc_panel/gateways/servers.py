"""``servers_panel``: the panel's internal squads for the servers plugin's sync."""

from __future__ import annotations

from collections.abc import Sequence

from subsvc.panel import PanelSquad
from subsvc_panel.client import PanelClient


class ServersGateway:
    """:class:`subsvc.panel.SquadsPanel` over the client (its errors are port errors)."""

    def __init__(self, panel: PanelClient) -> None:
        self.panel = panel

    async def squads(self) -> Sequence[PanelSquad]:
        found = await self.panel.squads()
        return [
            PanelSquad(
                uuid=str(s.get("uuid") or ""),
                name=str(s.get("name") or ""),
                country_code=s.get("countryCode"),
            )
            for s in found
        ]

"""``tariffs_panel``: external squads and a subscription's squads for the tariffs plugin."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.panel import ExternalSquad
from subsvc.services import services
from subsvc_panel import accounts
from subsvc_panel.client import PanelClient


class TariffsGateway:
    """:class:`subsvc.panel.SquadAssignmentPanel` over the client (its errors are port errors)."""

    def __init__(self, app: Starlette, panel: PanelClient) -> None:
        self.app = app
        self.panel = panel

    async def external_squads(self) -> Sequence[ExternalSquad]:
        found = await self.panel.external_squads()
        return [
            ExternalSquad(
                uuid=str(s.get("uuid") or ""),
                name=str(s.get("name") or ""),
                members_count=int((s.get("info") or {}).get("membersCount") or 0),
            )
            for s in found
        ]

    async def set_squads(
        self, user_id: int, subscription_id: int, squads: Sequence[str], external_squad_uuid: str | None
    ) -> bool:
        """Give the user's account these internal squads and this external squad; ``False``
        when the user has no account (the panel keeps one account per user)."""
        async with services(self.app).db.session() as session:
            user = await session.get(User, user_id)
        if user is None:
            return False
        account = await accounts.find_account(self.panel, user)
        if account is None:
            return False
        fields = {"activeInternalSquads": list(squads), "externalSquadUuid": external_squad_uuid}
        await self.panel.update_user(account["uuid"], fields)
        return True

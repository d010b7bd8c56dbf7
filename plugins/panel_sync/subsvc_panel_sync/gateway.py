"""``addons_panel``: the panel account of one subscription, for what its owner does directly
(devices, a new subscription link, the traffic read now). The account is the one recorded
for the subscription, else the one of its name (as a push finds it)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_panel.api import PanelClient, PanelNotFound, delete_all_devices, devices_of, panel_user

from subsvc.panel import PanelDevice, PanelUser
from subsvc_panel_sync.mapping import Wanted
from subsvc_panel_sync.push import find_user
from subsvc_panel_sync.queries import run_sql, statements


class SubscriptionGateway:
    """:class:`subsvc.panel.SubscriptionPanel` over the panel client (its errors are the
    port's)."""

    def __init__(self, client: PanelClient) -> None:
        self.client = client

    async def account(self, session: AsyncSession, subscription_id: int) -> PanelUser | None:
        query = statements(session.get_bind().dialect.name)["by_ids"]
        row = (await run_sql(session, query, params={"ids": [subscription_id]})).first()
        if row is None:
            return None
        wanted = Wanted.of(row)
        if wanted.panel_uuid:
            try:
                return panel_user(await self.client.user(wanted.panel_uuid))
            except PanelNotFound:
                pass  # deleted in the panel: by name, as a push would
        found = await find_user(self.client, wanted)
        return panel_user(found) if found is not None else None

    async def devices(self, panel_uuid: str) -> Sequence[PanelDevice]:
        return await devices_of(self.client, panel_uuid)

    async def delete_device(self, panel_uuid: str, hwid: str) -> bool:
        return await self.client.delete_user_device(panel_uuid, hwid)

    async def delete_all_devices(self, panel_uuid: str) -> int:
        return await delete_all_devices(self.client, panel_uuid)

    async def revoke(self, panel_uuid: str) -> PanelUser:
        return panel_user(await self.client.revoke_user_subscription(panel_uuid))

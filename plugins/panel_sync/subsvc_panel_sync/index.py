"""The panel's users, listed once per full sync (pages of ``PANEL_SYNC_BATCH_SIZE``) and
looked up by uuid and by name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from subsvc_panel.api import PanelClient

from subsvc_panel_sync.mapping import Wanted


@dataclass
class PanelIndex:
    by_uuid: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_name: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    async def load(cls, client: PanelClient, page_size: int) -> PanelIndex:
        index = cls()
        for user in await client.all_users(page_size):
            uuid = user.get("uuid")
            if not isinstance(uuid, str):
                continue
            index.by_uuid[uuid] = user
            name = user.get("username")
            if isinstance(name, str):
                index.by_name[name] = user
        return index

    def find(self, wanted: Wanted) -> dict[str, Any] | None:
        """The subscription's panel user: by its recorded uuid, else by its name."""
        if wanted.panel_uuid and wanted.panel_uuid in self.by_uuid:
            return self.by_uuid[wanted.panel_uuid]
        return self.by_name.get(wanted.username)

    def __len__(self) -> int:
        return len(self.by_uuid)

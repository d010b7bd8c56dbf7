"""The servers' sync with the VPN panel's squads, and its rules.

The panel plugin implements the ``servers_panel`` hook and returns the panel's squads (a
:class:`subsvc.panel.SquadsPanel`). This plugin keeps the rules of a sync:

- a squad the panel has and we do not becomes a server named after it, **unavailable** and
  priced 0, so nothing is sold before an administrator sets it up;
- a server whose squad the panel still has gets the panel's name as ``original_name`` (and
  its country code when ours is empty); the administrator's ``display_name`` stays;
- a server whose squad the panel no longer has is removed (with its promo-group links).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import func, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.panel import PanelError, PanelHook, PanelSquad, SquadsPanel, failures_as_502
from subsvc_servers.models import Server

__all__ = ["GATEWAY", "PanelError", "PanelSquad", "SyncResult", "fetch_squads", "sync", "sync_with_panel"]

#: The hook through which the panel plugin hands over its squads.
GATEWAY: PanelHook[SquadsPanel] = PanelHook("servers_panel")


@dataclass(frozen=True)
class SyncResult:
    created: int
    updated: int
    removed: int
    total: int

    @property
    def message(self) -> str:
        return f"Synced: {self.created} created, {self.updated} updated, {self.removed} removed"


async def fetch_squads(panel: SquadsPanel) -> list[PanelSquad]:
    """The panel's squads; a panel failure is a 502 that says what the panel answered."""
    with failures_as_502():
        squads = list(await panel.squads())
    return list({squad.uuid: squad for squad in squads if 0 < len(squad.uuid) <= 255}.values())


def _clip(text: str | None, size: int) -> str | None:
    return text.strip()[:size] or None if text else None


async def sync(session: AsyncSession, squads: Sequence[PanelSquad]) -> SyncResult:
    """Make the servers follow the panel's squads (rules in the module docstring)."""
    servers = {s.squad_uuid: s for s in (await session.exec(select(Server).with_for_update())).all()}
    now = utcnow()
    created = updated = 0
    for squad in squads:
        name = _clip(squad.name, 255) or squad.uuid[:255]
        country = _clip(squad.country_code, 5)
        server = servers.pop(squad.uuid, None)
        if server is None:
            session.add(
                Server(
                    squad_uuid=squad.uuid,
                    display_name=name,
                    original_name=name,
                    country_code=country,
                    is_available=False,
                    created_at=now,
                    updated_at=now,
                )
            )
            created += 1
            continue
        changed = server.original_name != name or (country is not None and server.country_code is None)
        if changed:
            server.original_name = name
            server.country_code = server.country_code or country
            server.updated_at = now
            session.add(server)
            updated += 1
    for gone in servers.values():
        await session.delete(gone)
    await session.flush()
    total = (await session.exec(select(func.count()).select_from(Server))).one()
    return SyncResult(created, updated, len(servers), total)


async def sync_with_panel(app: Starlette, session: AsyncSession) -> SyncResult:
    """The sync both areas run: 503 without a panel, 502 when it fails, else :func:`sync`."""
    return await sync(session, await fetch_squads(await GATEWAY.require(app)))

"""What the panel's squads and users are on our side: the servers plugin's rows for squads,
squad migrations of our subscriptions, a user's traffic by messenger id."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_servers import api as server_queries
from subsvc_servers.api import Server
from subsvc_subscriptions.api import Subscription, publish_change
from subsvc_users.api import find_user_by_messenger_id

from subsvc.db.rows import Rows
from subsvc.events import EventBus
from subsvc_panel import accounts, service
from subsvc_panel.client import PanelClient
from subsvc_panel.schemas import (
    MigrationPreviewResponse,
    MigrationStats,
    SquadDetailResponse,
    SquadWithLocalInfo,
    UserTrafficResponse,
)

USER_NOT_FOUND = "User not found"
PANEL_USER_NOT_FOUND = "User not found in the VPN panel"
SAME_SQUADS = "Source and target squads must be different"


class NotFound(LookupError):
    """The message is the answer (404)."""


class Refused(ValueError):
    """The message is the answer (400)."""


async def servers_by_squad(session: AsyncSession, squad_uuids: Sequence[str]) -> dict[str, Server]:
    if not squad_uuids:
        return {}
    found = await session.exec(select(Server).where(col(Server.squad_uuid).in_(list(squad_uuids))))
    return {server.squad_uuid: server for server in found.all()}


def _local(fields: dict[str, Any], server: Server | None) -> dict[str, Any]:
    if server is None:
        return fields
    return {
        **fields,
        "local_id": server.id,
        "display_name": server.display_name,
        "country_code": server.country_code,
        "is_available": server.is_available,
        "is_trial_eligible": server.is_trial_eligible,
        "price_kopeks": server.price_kopeks,
        "max_users": server.max_users,
        "current_users": server.current_users,
        "is_synced": True,
    }


async def squads_with_local_info(session: AsyncSession, panel: PanelClient) -> list[SquadWithLocalInfo]:
    squads = [service.squad_fields(s) for s in await panel.squads()]
    servers = await servers_by_squad(session, [s["uuid"] for s in squads])
    return [SquadWithLocalInfo(**_local(s, servers.get(s["uuid"]))) for s in squads]


async def squad_detail(session: AsyncSession, panel: PanelClient, squad_uuid: str) -> SquadDetailResponse:
    fields = await service.squad(panel, squad_uuid)
    server = (await servers_by_squad(session, [squad_uuid])).get(squad_uuid)
    counts = await server_queries.squad_counts(session, squad_uuid)
    extra: dict[str, Any] = {"active_subscriptions": counts.active + counts.trial}
    if server is not None:
        extra.update(description=server.description, sort_order=server.sort_order)
    return SquadDetailResponse(**_local(fields, server), **extra)


def _connected(squad_uuid: str, dialect: str) -> sa.ColumnElement[bool]:
    connected: sa.ColumnElement[bool] = server_queries.connects(sa.literal(squad_uuid, sa.String), dialect)
    return connected


async def migration_preview(
    session: AsyncSession, panel: PanelClient, squad_uuid: str
) -> MigrationPreviewResponse:
    """How many of our subscriptions are connected to the squad (all would move)."""
    fields = await service.squad(panel, squad_uuid)
    server = (await servers_by_squad(session, [squad_uuid])).get(squad_uuid)
    dialect = server_queries.dialect_of(session)
    table = Subscription.__table__  # type: ignore[attr-defined]
    total = (
        await session.exec(Rows(sa.func.count()).select_from(table).where(_connected(squad_uuid, dialect)))
    ).one()[0]
    return MigrationPreviewResponse(
        squad_uuid=squad_uuid,
        squad_name=fields["name"],
        current_users=int(total),
        max_users=server.max_users if server is not None else None,
        users_to_migrate=int(total),
    )


async def migrate(
    session: AsyncSession, events: EventBus, panel: PanelClient, source_uuid: str, target_uuid: str
) -> MigrationStats:
    """Move every subscription connected to ``source_uuid`` to ``target_uuid`` (both must
    be panel squads). Each change is published as ``subscription.changed`` in this
    transaction, so the panel accounts follow through the synchronisation (outbox): the
    panel figures count the changes queued for it."""
    if source_uuid == target_uuid:
        raise Refused(SAME_SQUADS)
    await service.squad(panel, source_uuid)
    await service.squad(panel, target_uuid)
    dialect = server_queries.dialect_of(session)
    query = (
        select(Subscription)
        .where(_connected(source_uuid, dialect))
        .order_by(col(Subscription.id))
        .with_for_update()
    )
    subscriptions = list((await session.exec(query)).all())
    stats = MigrationStats(source_uuid=source_uuid, target_uuid=target_uuid, total=len(subscriptions))
    for subscription in subscriptions:
        squads = [s for s in subscription.connected_squads if s != source_uuid]
        stats.source_removed += 1
        if target_uuid not in squads:
            squads.append(target_uuid)
            stats.target_added += 1
        subscription.connected_squads = squads
        publish_change(session, events, subscription, "squads")
        session.add(subscription)
        stats.updated += 1
        stats.panel_updated += 1
    await session.flush()
    return stats


async def user_traffic(session: AsyncSession, panel: PanelClient, messenger_id: int) -> UserTrafficResponse:
    """The panel's traffic figures of the user with this messenger id."""
    if not -(2**63) <= messenger_id < 2**63 or await find_user_by_messenger_id(session, messenger_id) is None:
        raise NotFound(USER_NOT_FOUND)
    found = await panel.users_by_messenger_id(messenger_id)
    if not found:
        raise NotFound(PANEL_USER_NOT_FOUND)
    account = found[0]
    traffic = accounts.traffic_of(account)
    used = service.as_int(traffic.get("usedTrafficBytes"))
    lifetime = service.as_int(traffic.get("lifetimeUsedTrafficBytes"))
    limit = service.as_int(account.get("trafficLimitBytes"))
    return UserTrafficResponse(
        messenger_id=messenger_id,
        used_traffic_bytes=used,
        used_traffic_gb=service.gib(used),
        lifetime_used_traffic_bytes=lifetime,
        lifetime_used_traffic_gb=service.gib(lifetime),
        traffic_limit_bytes=limit,
        traffic_limit_gb=service.gib(limit),
        subscription_url=account.get("subscriptionUrl"),
    )

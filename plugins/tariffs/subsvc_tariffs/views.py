"""Tariffs as the endpoints answer them: list items and the detail (with every server and
every promo group, each marked selected or not)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_promo_groups.api import PromoGroup
from subsvc_servers.api import Server

from subsvc_tariffs import service
from subsvc_tariffs.models import Tariff
from subsvc_tariffs.schemas import (
    PromoGroupInfo,
    ServerInfo,
    ServerTrafficLimit,
    TariffDetailResponse,
    TariffListItem,
)


def list_item(tariff: Tariff, subscriptions_count: int) -> TariffListItem:
    assert tariff.id is not None
    return TariffListItem.model_validate(
        {
            **tariff.model_dump(),
            "servers_count": len(tariff.allowed_squads),
            "subscriptions_count": subscriptions_count,
        }
    )


async def all_servers(session: AsyncSession) -> Sequence[Server]:
    """Every server, as the servers plugin orders them (sort order, then id)."""
    query = select(Server).order_by(col(Server.sort_order), col(Server.id))
    return (await session.exec(query)).all()


def server_info(server: Server, tariff: Tariff | None = None) -> ServerInfo:
    """A server; with a tariff, whether the tariff includes it and its traffic limit there."""
    assert server.id is not None
    selected = tariff is not None and server.squad_uuid in tariff.allowed_squads
    limit = service.limit_of(tariff.server_traffic_limits.get(server.squad_uuid)) if tariff else None
    return ServerInfo.model_validate(
        {**server.model_dump(), "is_selected": selected, "traffic_limit_gb": limit}
    )


async def detail(session: AsyncSession, tariff: Tariff) -> TariffDetailResponse:
    """The whole tariff: 4 queries (servers, promo groups, its groups, its subscriptions)."""
    assert tariff.id is not None
    servers = [server_info(server, tariff) for server in await all_servers(session)]
    groups = (await session.exec(select(PromoGroup).order_by(col(PromoGroup.name), col(PromoGroup.id)))).all()
    selected = set((await service.promo_group_ids(session, [tariff.id]))[tariff.id])
    promo_groups = [
        PromoGroupInfo(id=group.id, name=group.name, is_selected=group.id in selected)
        for group in groups
        if group.id is not None
    ]
    limits = {
        uuid: ServerTrafficLimit(traffic_limit_gb=gb)
        for uuid, stored in tariff.server_traffic_limits.items()
        if (gb := service.limit_of(stored)) is not None
    }
    count = (await service.subscription_counts(session, [tariff.id]))[tariff.id]
    return TariffDetailResponse.model_validate(
        {
            **tariff.model_dump(),
            "traffic_topup_packages": {str(k): int(v) for k, v in tariff.traffic_topup_packages.items()},
            "period_prices": service.period_list(tariff.period_prices),
            "server_traffic_limits": limits,
            "servers": servers,
            "promo_groups": promo_groups,
            "subscriptions_count": count,
        }
    )

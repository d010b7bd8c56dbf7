"""The rules of servers; no HTTP in here.

- ``squad_uuid`` is unique (a duplicate is :class:`SquadTaken`, also when two creations race).
- ``max_users`` None = no limit; 0 given by a client means the same and is stored as None.
- Promo-group restrictions: the groups linked to a server may buy it; a server with no link
  is open to every group. Unknown group ids are refused (:class:`UnknownPromoGroups`).
- A server cannot be deleted while live subscriptions connect to its squad or a tariff
  offers it (:class:`ServerInUse`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, delete, func, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_promo_groups.api import PromoGroup

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_servers import queries
from subsvc_servers.models import Server, ServerPromoGroup

AVAILABLE = "available"
UNAVAILABLE = "unavailable"
FULL = "full"


class ServerNotFound(LookupError):
    """No server has the id."""


class SquadTaken(ValueError):
    """Another server already sells the squad."""


class UnknownPromoGroups(ValueError):
    """Promo group ids that name no group."""


class ServerInUse(ValueError):
    """Live subscriptions or tariffs still use the server."""


@dataclass(frozen=True)
class Statistics:
    total: int
    available: int
    with_connections: int
    revenue_kopeks: int


def is_full(server: Server) -> bool:
    return server.max_users is not None and server.current_users >= server.max_users


def availability_status(server: Server) -> str:
    """``unavailable`` (switched off), ``full`` (no room left) or ``available``."""
    if not server.is_available:
        return UNAVAILABLE
    return FULL if is_full(server) else AVAILABLE


def user_limit(value: int | None) -> int | None:
    """A client's ``max_users``: 0 and None both mean no limit."""
    return value or None


# --- reading -------------------------------------------------------------------------------------


async def get_server(session: AsyncSession, server_id: int, *, for_update: bool = False) -> Server:
    query = select(Server).where(col(Server.id) == server_id)
    if for_update:
        query = query.with_for_update()
    server = (await session.exec(query)).first()
    if server is None:
        raise ServerNotFound(server_id)
    return server


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


async def list_servers(
    session: AsyncSession,
    *,
    only_available: bool = False,
    search: str | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> tuple[list[Server], int]:
    """Servers by ``sort_order`` then id, and how many match. ``search`` looks into the
    names, the squad uuid and the country code (case-insensitive)."""
    conditions: list[Any] = []
    if only_available:
        conditions.append(col(Server.is_available).is_(True))
    if search and search.strip():
        pattern = f"%{_escape_like(search.strip())}%"
        conditions.append(
            or_(
                *(
                    col(column).ilike(pattern, escape="\\")
                    for column in (
                        Server.display_name,
                        Server.original_name,
                        Server.squad_uuid,
                        Server.country_code,
                    )
                )
            )
        )
    total = (await session.exec(select(func.count()).select_from(Server).where(*conditions))).one()
    query = select(Server).where(*conditions).order_by(col(Server.sort_order), col(Server.id)).offset(offset)
    if limit is not None:
        query = query.limit(limit)
    if limit is not None and total <= offset:
        return [], total
    return list((await session.exec(query)).all()), total


async def promo_groups_of(session: AsyncSession, server_ids: Sequence[int]) -> dict[int, list[PromoGroup]]:
    """The promo groups linked to each server (by group id), in one query."""
    found: dict[int, list[PromoGroup]] = defaultdict(list)
    if not server_ids:
        return found
    query = (
        select(col(ServerPromoGroup.server_squad_id), PromoGroup)
        .join(PromoGroup, col(PromoGroup.id) == col(ServerPromoGroup.promo_group_id))
        .where(col(ServerPromoGroup.server_squad_id).in_(list(server_ids)))
        .order_by(col(PromoGroup.id))
    )
    for server_id, group in (await session.exec(query)).all():
        found[server_id].append(group)
    return found


async def all_promo_groups(session: AsyncSession) -> list[PromoGroup]:
    return list(
        (
            await session.exec(
                select(PromoGroup).order_by(col(PromoGroup.priority).desc(), col(PromoGroup.id))
            )
        ).all()
    )


async def statistics(session: AsyncSession) -> Statistics:
    query = select(
        func.count(),
        func.coalesce(func.sum(sa.case((col(Server.is_available), 1), else_=0)), 0),
        func.coalesce(func.sum(sa.case((col(Server.current_users) > 0, 1), else_=0)), 0),
        func.coalesce(
            func.sum(sa.cast(col(Server.price_kopeks), sa.BigInteger) * col(Server.current_users)), 0
        ),
    ).select_from(Server)
    total, available, connected, revenue = (await session.exec(query)).one()
    return Statistics(int(total), int(available), int(connected), int(revenue))


async def available_for(
    session: AsyncSession, promo_group_id: int | None, *, trial: bool = False
) -> list[Server]:
    """The servers a member of ``promo_group_id`` may buy now (``trial``: those a trial may
    use): available, not full, and open to every group or to that one."""
    restricted = select(ServerPromoGroup.server_squad_id).where(
        col(ServerPromoGroup.server_squad_id) == col(Server.id)
    )
    allowed = ~restricted.exists()
    if promo_group_id is not None:
        allowed = or_(
            allowed, restricted.where(col(ServerPromoGroup.promo_group_id) == promo_group_id).exists()
        )
    query = select(Server).where(
        col(Server.is_available).is_(True),
        or_(col(Server.max_users).is_(None), col(Server.current_users) < col(Server.max_users)),
        allowed,
    )
    if trial:
        query = query.where(col(Server.is_trial_eligible).is_(True))
    return list((await session.exec(query.order_by(col(Server.sort_order), col(Server.id)))).all())


# --- changing ------------------------------------------------------------------------------------


async def _checked_groups(session: AsyncSession, group_ids: Iterable[int]) -> list[int]:
    wanted = sorted(set(group_ids))
    if not wanted:
        return []
    known = set((await session.exec(select(PromoGroup.id).where(col(PromoGroup.id).in_(wanted)))).all())
    missing = [group_id for group_id in wanted if group_id not in known]
    if missing:
        raise UnknownPromoGroups(missing)
    return wanted


async def set_promo_groups(session: AsyncSession, server: Server, group_ids: Iterable[int]) -> None:
    """Replace the server's promo groups (unknown ids: :class:`UnknownPromoGroups`)."""
    assert server.id is not None
    wanted = await _checked_groups(session, group_ids)
    await session.exec(delete(ServerPromoGroup).where(col(ServerPromoGroup.server_squad_id) == server.id))
    session.add_all(ServerPromoGroup(server_squad_id=server.id, promo_group_id=g) for g in wanted)
    await session.flush()


async def create_server(
    session: AsyncSession, fields: Mapping[str, Any], promo_group_ids: Sequence[int] | None
) -> Server:
    """Add a server; 409-worthy :class:`SquadTaken` when the squad is sold already."""
    groups = await _checked_groups(session, promo_group_ids or ())
    if await _squad_taken(session, fields["squad_uuid"]):
        raise SquadTaken(fields["squad_uuid"])
    now = utcnow()
    server = Server(
        **{**fields, "max_users": user_limit(fields.get("max_users"))}, created_at=now, updated_at=now
    )
    try:
        async with session.begin_nested():
            session.add(server)
            await session.flush()
    except IntegrityError:
        raise SquadTaken(fields["squad_uuid"]) from None
    assert server.id is not None
    session.add_all(ServerPromoGroup(server_squad_id=server.id, promo_group_id=g) for g in groups)
    await session.flush()
    return server


async def _squad_taken(session: AsyncSession, squad_uuid: str) -> bool:
    query = select(Server.id).where(col(Server.squad_uuid) == squad_uuid)
    return (await session.exec(query)).first() is not None


async def update_server(
    session: AsyncSession, server: Server, changes: Mapping[str, Any], promo_group_ids: Sequence[int] | None
) -> Server:
    """Apply ``changes`` (already resolved: ``None`` values are meant) and, when given,
    replace the promo groups. Nothing is written when a group id is unknown."""
    if promo_group_ids is not None:
        await set_promo_groups(session, server, promo_group_ids)
    for name, value in changes.items():
        setattr(server, name, user_limit(value) if name == "max_users" else value)
    server.updated_at = utcnow()
    session.add(server)
    await session.flush()
    return server


async def tariffs_using(app: Starlette, session: AsyncSession, squad_uuid: str) -> list[str]:
    """Names of the tariffs offering the squad (the ``servers_tariffs_using`` hook)."""
    parts = await services(app).plugins.call_all(
        "servers_tariffs_using", session=session, squad_uuid=squad_uuid
    )
    return sorted({name for part in parts for name in part})


async def delete_server(app: Starlette, session: AsyncSession, server: Server) -> None:
    """Delete the server (its promo-group links go with it), unless it is in use."""
    counts = await queries.squad_counts(session, server.squad_uuid)
    live = counts.active + counts.trial
    if live:
        raise ServerInUse(f"Server has {live} active subscription(s) connected; make it unavailable instead")
    tariffs = await tariffs_using(app, session, server.squad_uuid)
    if tariffs:
        raise ServerInUse(f"Server is used by tariffs: {', '.join(tariffs)}")
    await session.delete(server)
    await session.flush()


async def move_promo_group(session: AsyncSession, group_id: int, fallback_group_id: int) -> None:
    """A promo group is being deleted: the servers it could buy go to the fallback group, so
    that a restricted server does not become open to every group."""
    links = ServerPromoGroup.__table__  # type: ignore[attr-defined]
    servers = select(links.c.server_squad_id).where(links.c.promo_group_id == group_id)
    has_fallback = select(links.c.server_squad_id).where(links.c.promo_group_id == fallback_group_id)
    await session.exec(
        sa.insert(links).from_select(
            ["server_squad_id", "promo_group_id"],
            select(links.c.server_squad_id, sa.literal(fallback_group_id)).where(
                links.c.server_squad_id.in_(servers), links.c.server_squad_id.not_in(has_fallback)
            ),
        )
    )
    await session.exec(delete(ServerPromoGroup).where(col(ServerPromoGroup.promo_group_id) == group_id))

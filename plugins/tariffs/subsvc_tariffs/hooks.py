"""The tariffs plugin's implementations of the promo_groups, servers and cabinet_admin_users ports
(the available tariffs of a user, tariff names)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_tariffs import available, service
from subsvc_tariffs.models import Tariff


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    """Take the group off the tariffs that allow other groups too (see
    :func:`subsvc_tariffs.service.forget_promo_group`)."""
    return service.forget_promo_group(session, group_id)


@hookimpl(optionalhook=True)
def cabinet_admin_user_tariffs(
    session: AsyncSession, user_id: int, promo_group_id: int | None, include_inactive: bool
) -> Awaitable[list[dict[str, Any]]]:
    """The tariffs of ``GET /cabinet/admin/users/{id}/available-tariffs`` (when the
    cabinet_admin_users plugin runs), each marked available or not for the user's group."""
    return available.user_tariffs(session, promo_group_id, include_inactive=include_inactive)


@hookimpl(optionalhook=True)
async def cabinet_admin_tariff_names(session: AsyncSession, tariff_ids: Sequence[int]) -> dict[int, str]:
    """The names of the tariffs a page of the administrators' users list shows (one query)."""
    if not tariff_ids:
        return {}
    rows = await session.exec(select(Tariff.id, Tariff.name).where(col(Tariff.id).in_(set(tariff_ids))))
    return {tariff_id: name for tariff_id, name in rows.all() if tariff_id is not None}


@hookimpl
def servers_tariffs_using(session: AsyncSession, squad_uuid: str) -> Awaitable[list[str]]:
    """The tariffs offering a server's squad: the servers plugin refuses to delete such a
    server and lists them in its detail."""
    return service.tariffs_offering(session, squad_uuid)

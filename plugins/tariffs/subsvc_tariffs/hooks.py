"""The tariffs plugin's implementations of the promo_groups, servers and cabinet_admin_users ports."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_tariffs import available, service


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


@hookimpl
def servers_tariffs_using(session: AsyncSession, squad_uuid: str) -> Awaitable[list[str]]:
    """The tariffs offering a server's squad: the servers plugin refuses to delete such a
    server and lists them in its detail."""
    return service.tariffs_offering(session, squad_uuid)

"""Runtime hooks of the users plugin, and its part in the promo_groups plugin's extension points
(users are the groups' members)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_users import service
from subsvc_users.counts import CountCache, count_cache
from subsvc_users.settings import UsersSettings


@hookimpl
def startup(app: Starlette) -> None:
    app.state.users_count_cache = CountCache(UsersSettings.of(app).USERS_COUNT_CACHE_SECONDS)


@hookimpl
def promo_group_member_counts(
    app: Starlette, session: AsyncSession, group_ids: Sequence[int]
) -> Awaitable[dict[int, int]]:
    return service.member_counts(session, count_cache(app), group_ids)


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    return service.move_members(app, session, group_id, fallback_group_id)

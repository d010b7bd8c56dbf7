"""Promocodes' implementation of the `promo_groups` extension point: codes may name a group."""

from __future__ import annotations

from collections.abc import Awaitable

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_promocodes import service


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    return service.detach_group(session, group_id)

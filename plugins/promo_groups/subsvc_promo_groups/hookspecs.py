"""Extension points of the promo_groups plugin, for the plugins whose rows point at a group
(the users plugin implements both: its users are the groups' members)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookspec


@hookspec
def promo_group_member_counts(  # type: ignore[empty-body]
    app: Starlette, session: AsyncSession, group_ids: Sequence[int]
) -> Awaitable[dict[int, int]]:
    """Return (an awaitable of) how many members each of ``group_ids`` has: ``{group_id: n}``
    (absent ids count 0).

    Called once per response with every group on the page, so implementations count in one
    grouped query (and may keep the figures for a few seconds, like the users plugin does).
    The counts of every implementation are added up into ``members_count``.
    """


@hookspec
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None] | None:
    """A non-default group is about to be deleted in ``session``'s transaction: move the rows
    that point at ``group_id`` to ``fallback_group_id`` (the default group), or return (an
    awaitable) after clearing them. The group's row is locked while this runs."""

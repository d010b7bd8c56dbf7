"""The bot layout's history: one entry (the whole layout) per change, the newest kept."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete
from sqlalchemy import select as sa_select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import page_of
from subsvc_menus.models import MenuLayoutHistory

TABLE = MenuLayoutHistory.__table__  # type: ignore[attr-defined]


async def record(
    session: AsyncSession, config: dict[str, Any], action: str, summary: str, user_info: str | None, keep: int
) -> None:
    """Add an entry and forget those beyond the newest ``keep``."""
    session.add(MenuLayoutHistory(action=action, changes_summary=summary, user_info=user_info, config=config))
    await session.flush()
    oldest_kept = (
        sa_select(TABLE.c.id).order_by(TABLE.c.id.desc()).offset(keep - 1).limit(1).scalar_subquery()
    )
    await session.exec(delete(TABLE).where(TABLE.c.id < oldest_kept))


async def page(session: AsyncSession, limit: int, offset: int) -> tuple[list[MenuLayoutHistory], int]:
    """Entries newest first, and how many there are."""
    return await page_of(
        session, MenuLayoutHistory, [], [TABLE.c.created_at.desc(), TABLE.c.id.desc()], offset, limit
    )


async def entry(session: AsyncSession, history_id: int) -> MenuLayoutHistory | None:
    return await session.get(MenuLayoutHistory, history_id)

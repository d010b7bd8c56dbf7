"""The bot layout in the database: read it, and change it as one locked, validated,
recorded step (see :mod:`subsvc_menus.documents`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc_menus import documents, history
from subsvc_menus import layout as rules
from subsvc_menus.schemas.layout import MenuLayout

T = TypeVar("T")


@dataclass
class Saved:
    layout: MenuLayout
    updated_at: datetime | None


@dataclass
class Editor:
    """Who changes the layout (for the history) and how much history is kept."""

    user_info: str | None
    keep: int


async def current(session: AsyncSession) -> Saved:
    stored = await documents.read(session, documents.BOT_LAYOUT)
    return Saved(rules.load(stored.data), stored.updated_at)


async def edit(
    session: AsyncSession,
    editor: Editor,
    mutate: Callable[[MenuLayout], T],
    *,
    action: str,
    summary: str,
) -> tuple[T, Saved]:
    """Apply ``mutate`` to the locked layout, refuse (400) a result with errors, save it and
    record it in the history. The refusals of ``mutate`` (:class:`LayoutError`) pass through."""
    stored = await documents.take(session, documents.BOT_LAYOUT)
    layout = rules.load(stored.data)
    result = mutate(layout)
    rules.ensure_valid(layout)
    config = rules.dump(layout)
    updated_at = await documents.save(session, documents.BOT_LAYOUT, config)
    await history.record(session, config, action, summary, editor.user_info, editor.keep)
    return result, Saved(layout, updated_at)


async def reset(session: AsyncSession, editor: Editor) -> Saved:
    """Back to the default layout (stored as "defaults", so it follows the bot's catalogue)."""
    await documents.take(session, documents.BOT_LAYOUT)
    updated_at = await documents.save(session, documents.BOT_LAYOUT, None)
    layout = rules.default_layout()
    await history.record(
        session, rules.dump(layout), "reset", "Reset to the default layout", editor.user_info, editor.keep
    )
    return Saved(layout, updated_at)

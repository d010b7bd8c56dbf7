"""The plugin's JSON documents (one row each in ``menu_documents``): read them, or take one
for a change.

A change starts by bumping the row's ``revision`` (an UPDATE): on PostgreSQL that locks the
row until the transaction ends, on SQLite it takes the database's write lock. Two changes of
one document therefore run one after the other, each on what the other committed; a
read-modify-write never loses an update."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_menus.models import MenuDocument

BOT_LAYOUT = "bot_layout"
CABINET_LAYOUT = "cabinet_layout"
BUTTON_STYLES = "button_styles"

TABLE = MenuDocument.__table__  # type: ignore[attr-defined]


@dataclass
class Stored:
    """A document as stored: ``data`` None means the defaults."""

    key: str
    data: dict[str, Any] | None
    updated_at: datetime | None


async def read(session: AsyncSession, key: str) -> Stored:
    """The document (``data`` None when it was never saved or was reset)."""
    found = (await session.exec(select(TABLE.c.data, TABLE.c.updated_at).where(TABLE.c.key == key))).first()
    if found is None:
        return Stored(key, None, None)
    data, updated_at = found
    return Stored(key, data, updated_at)


async def take(session: AsyncSession, key: str) -> Stored:
    """The document, locked for a change until the transaction ends (created when missing)."""
    bump = update(TABLE).where(TABLE.c.key == key).values(revision=TABLE.c.revision + 1)
    for _ in range(2):
        if (await session.exec(bump)).rowcount:
            return await read(session, key)
        dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
        insert = dialect.insert(TABLE).values(key=key, data=None, revision=0, updated_at=None)
        await session.exec(insert.on_conflict_do_nothing(index_elements=["key"]))
    raise RuntimeError(f"menu document {key!r} could not be locked")  # pragma: no cover


async def save(session: AsyncSession, key: str, data: dict[str, Any] | None) -> datetime:
    """Store a document taken with :func:`take` (None: back to the defaults); its new time."""
    now = utcnow()
    await session.exec(update(TABLE).where(TABLE.c.key == key).values(data=data, updated_at=now))
    return now

"""The rules of welcome texts: at most one active (activating one deactivates the others),
newest first, placeholders filled for a user."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import update
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import add_new, page_of, utcnow
from subsvc_welcome_texts.models import WelcomeText
from subsvc_welcome_texts.schemas import WelcomeTextCreateRequest, WelcomeTextUpdateRequest

TABLE = SQLModel.metadata.tables[WelcomeText.__tablename__]
FRIEND = "друг"


async def list_texts(
    session: AsyncSession, limit: int, offset: int, include_inactive: bool
) -> tuple[int, Sequence[WelcomeText]]:
    """A page of texts, newest first, and how many there are."""
    where = [] if include_inactive else [TABLE.c.is_active.is_(True)]
    order = [TABLE.c.created_at.desc(), TABLE.c.id.desc()]
    texts, total = await page_of(session, WelcomeText, where, order, offset, limit)
    return total, texts


async def _deactivate_others(session: AsyncSession, keep_id: int | None) -> None:
    statement = update(TABLE).where(TABLE.c.is_active.is_(True)).values(is_active=False, updated_at=utcnow())
    if keep_id is not None:
        statement = statement.where(TABLE.c.id != keep_id)
    await session.exec(statement)


async def create_text(
    session: AsyncSession, payload: WelcomeTextCreateRequest, created_by: int | None
) -> WelcomeText:
    """A new text; an active one replaces the text active until now."""
    if payload.is_active:
        await _deactivate_others(session, None)
    record = WelcomeText(
        text_content=payload.text,
        is_active=payload.is_active,
        is_enabled=payload.is_enabled,
        created_by=created_by,
    )
    return await add_new(session, record)


async def get_text(session: AsyncSession, text_id: int) -> WelcomeText | None:
    return await session.get(WelcomeText, text_id)


async def update_text(session: AsyncSession, record: WelcomeText, payload: WelcomeTextUpdateRequest) -> None:
    """Change the fields sent (null: unchanged); activating it deactivates the others."""
    if payload.text is not None:
        record.text_content = payload.text
    if payload.is_enabled is not None:
        record.is_enabled = payload.is_enabled
    if payload.is_active is not None:
        if payload.is_active and not record.is_active:
            await _deactivate_others(session, record.id)
        record.is_active = payload.is_active
    record.updated_at = utcnow()
    session.add(record)
    await session.flush()


async def delete_text(session: AsyncSession, record: WelcomeText) -> None:
    await session.delete(record)
    await session.flush()


async def active_text(session: AsyncSession) -> WelcomeText | None:
    """The text the bot greets with: the active one, when it is enabled."""
    query = select(WelcomeText).where(TABLE.c.is_active.is_(True), TABLE.c.is_enabled.is_(True))
    return (await session.exec(query.order_by(TABLE.c.updated_at.desc()).limit(1))).first()


def render(text: str, first_name: str | None, username: str | None) -> str:
    """Fill the placeholders ``{user_name}``, ``{first_name}``, ``{username}`` (with ``@``) and
    ``{username_clean}`` for a user, as the bot does."""
    values = {
        "{user_name}": first_name or username or FRIEND,
        "{first_name}": first_name or FRIEND,
        "{username}": f"@{username}" if username else first_name or FRIEND,
        "{username_clean}": username or first_name or FRIEND,
    }
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text

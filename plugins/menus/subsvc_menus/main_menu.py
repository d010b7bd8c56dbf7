"""The main menu's extra buttons (links, Mini Apps) and messages: their rules."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import func, update
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc import messenger_markup
from subsvc.db import page_of, utcnow
from subsvc_menus.models import MainMenuButton, UserMessage

BUTTONS = MainMenuButton.__table__  # type: ignore[attr-defined]
MESSAGES = UserMessage.__table__  # type: ignore[attr-defined]
BUTTON_NOT_FOUND = "Main menu button not found"
MESSAGE_NOT_FOUND = "User message not found"
Row = TypeVar("Row", MainMenuButton, UserMessage)


class MenuRuleError(ValueError):
    """A refused value (answered 400)."""


class NotFound(LookupError):
    """An unknown id (answered 404)."""


async def _apply(session: AsyncSession, row: Row, changes: dict[str, Any]) -> Row:
    """Set the fields given (already without nulls); a change bumps ``updated_at``."""
    for name, value in changes.items():
        setattr(row, name, value)
    if changes:
        row.updated_at = utcnow()
    await session.flush()
    return row


def _given(changes: dict[str, Any]) -> dict[str, Any]:
    """The fields of a partial update that change something (null stays)."""
    return {name: value for name, value in changes.items() if value is not None}


def check_action(action_type: str, action_value: str) -> None:
    """A ``url`` button opens an http(s):// or tg:// link; a ``mini_app`` one an https:// page."""
    if action_type == "mini_app" and not action_value.startswith("https://"):
        raise MenuRuleError("action_value of a mini_app button must be an https:// URL")
    if action_type == "url" and not action_value.startswith(("http://", "https://", "tg://")):
        raise MenuRuleError("action_value of a url button must be an http://, https:// or tg:// URL")


async def list_buttons(session: AsyncSession, limit: int, offset: int) -> tuple[list[MainMenuButton], int]:
    return await page_of(session, MainMenuButton, [], [BUTTONS.c.display_order, BUTTONS.c.id], offset, limit)


async def create_button(session: AsyncSession, values: dict[str, Any]) -> MainMenuButton:
    """A new button; without ``display_order`` it goes after the last one."""
    check_action(values["action_type"], values["action_value"])
    if values.get("display_order") is None:
        highest = (await session.exec(select(func.max(BUTTONS.c.display_order)))).one()
        values["display_order"] = 0 if highest is None else highest + 1
    button = MainMenuButton(**values)
    session.add(button)
    await session.flush()
    return button


async def _locked(session: AsyncSession, model: type[Row], row_id: int, not_found: str) -> Row:
    """The row of ``model`` with this id, locked for the change; :class:`NotFound` without one."""
    row = await session.get(model, row_id, with_for_update=True)
    if row is None:
        raise NotFound(not_found)
    return row


async def get_button(session: AsyncSession, button_id: int) -> MainMenuButton:
    return await _locked(session, MainMenuButton, button_id, BUTTON_NOT_FOUND)


async def update_button(session: AsyncSession, button_id: int, changes: dict[str, Any]) -> MainMenuButton:
    """Change the fields given (null stays); the action is checked as it ends up."""
    button = await get_button(session, button_id)
    changes = _given(changes)
    check_action(
        changes.get("action_type", button.action_type), changes.get("action_value", button.action_value)
    )
    return await _apply(session, button, changes)


async def delete_button(session: AsyncSession, button_id: int) -> None:
    await session.delete(await get_button(session, button_id))
    await session.flush()


def _check_text(text: str) -> None:
    try:
        messenger_markup.clean(text)
    except messenger_markup.MarkupError as exc:
        raise MenuRuleError(str(exc)) from None


async def list_messages(
    session: AsyncSession, limit: int, offset: int, include_inactive: bool
) -> tuple[list[UserMessage], int]:
    where = [] if include_inactive else [MESSAGES.c.is_active.is_(True)]
    return await page_of(session, UserMessage, where, [MESSAGES.c.sort_order, MESSAGES.c.id], offset, limit)


async def create_message(
    session: AsyncSession, values: dict[str, Any], created_by: int | None
) -> UserMessage:
    _check_text(values["message_text"])
    message = UserMessage(**values, created_by=created_by)
    session.add(message)
    await session.flush()
    return message


async def get_message(session: AsyncSession, message_id: int) -> UserMessage:
    return await _locked(session, UserMessage, message_id, MESSAGE_NOT_FOUND)


async def update_message(session: AsyncSession, message_id: int, changes: dict[str, Any]) -> UserMessage:
    message = await get_message(session, message_id)
    changes = _given(changes)
    if "message_text" in changes:
        _check_text(changes["message_text"])
    return await _apply(session, message, changes)


async def toggle_message(session: AsyncSession, message_id: int) -> UserMessage:
    """Flip ``is_active`` in the database (one UPDATE: two toggles at once both count)."""
    flip = update(MESSAGES).where(MESSAGES.c.id == message_id)
    result = await session.exec(flip.values(is_active=~MESSAGES.c.is_active, updated_at=utcnow()))
    if not result.rowcount:
        raise NotFound(MESSAGE_NOT_FOUND)
    message = await get_message(session, message_id)
    await session.refresh(message)
    return message


async def delete_message(session: AsyncSession, message_id: int) -> None:
    await session.delete(await get_message(session, message_id))
    await session.flush()

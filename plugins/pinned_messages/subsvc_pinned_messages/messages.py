"""The rules of pinned messages: content checked against the messenger's HTML, at most one
active message (changes to which one is active are serialised, and a partial unique index
holds the rule in the database too), listing, editing, deleting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col
from sqlmodel import select as select_rows
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import User

from subsvc import messenger_markup as markup
from subsvc.api import INT32_MAX
from subsvc.api.refusal import Refusal
from subsvc.db import utcnow
from subsvc_pinned_messages.models import MESSAGES, PinnedMessage
from subsvc_pinned_messages.schemas import (
    PinnedMessageCreateRequest,
    PinnedMessageMedia,
    PinnedMessageSettingsRequest,
    PinnedMessageUpdateRequest,
)

USERS: Table = User.metadata.tables["users"]
ACTIVATION_LOCK_KEY = 0x70696E6E  # one advisory lock for every change of the active message

NOT_FOUND = "Pinned message not found"
NOTHING_TO_SEND = "Either content or media must be provided"
MEDIA_TYPES = "Only photo or video media types are supported"
ACTIVE_CONFLICT = "Another pinned message was activated at the same time; try again"


class PinnedMessageError(Refusal):
    """A refusal of the rules: answer ``status`` with ``detail``."""


def is_row_id(value: int) -> bool:
    """Row ids are positive 32-bit integers: anything else names no row (and must not reach
    the driver)."""
    return 0 < value <= INT32_MAX


async def lock_activation(session: AsyncSession) -> None:
    """Serialise the transactions that change which message is active (or start a run), until
    this transaction ends: PostgreSQL takes an advisory lock; on SQLite a write takes the
    database's write lock (and later reads in the transaction see every earlier commit)."""
    if session.get_bind().dialect.name == "postgresql":
        await session.exec(select_rows(func.pg_advisory_xact_lock(ACTIVATION_LOCK_KEY)))
    else:
        await session.exec(update(MESSAGES).where(MESSAGES.c.id.is_(None)).values(is_active=False))


def prepare_content(content: str, has_media: bool) -> str:
    """The content as it will be sent: trimmed, checked against the messenger's HTML (400
    naming the problem); nothing visible and no media is a 400 too."""
    trimmed = content.strip()
    if not has_media and not markup.visible_text(trimmed).strip():
        raise PinnedMessageError(400, NOTHING_TO_SEND)
    try:
        return markup.clean(trimmed)
    except markup.MarkupError as exc:
        raise PinnedMessageError(400, str(exc)) from None


def _check_media(media: PinnedMessageMedia | None) -> None:
    if media is not None and media.type not in ("photo", "video"):
        raise PinnedMessageError(400, MEDIA_TYPES)


async def existing_user(session: AsyncSession, user_id: int | None) -> int | None:
    """``user_id`` when such a user exists (a creator that is not a user is recorded as null)."""
    if user_id is None or not is_row_id(user_id):
        return None
    found = (await session.exec(select_rows(USERS.c.id).where(USERS.c.id == user_id))).first()
    return None if found is None else user_id


async def _deactivate_all(session: AsyncSession) -> None:
    await session.exec(
        update(MESSAGES).where(MESSAGES.c.is_active.is_(True)).values(is_active=False, updated_at=utcnow())
    )


async def _flush_active(session: AsyncSession) -> None:
    """Write now; the unique index refusing a second active message is a 409."""
    try:
        await session.flush()
    except IntegrityError:
        raise PinnedMessageError(409, ACTIVE_CONFLICT) from None


async def get(session: AsyncSession, message_id: int) -> PinnedMessage | None:
    return await session.get(PinnedMessage, message_id) if is_row_id(message_id) else None


async def get_or_404(session: AsyncSession, message_id: int) -> PinnedMessage:
    found = await get(session, message_id)
    if found is None:
        raise PinnedMessageError(404, NOT_FOUND)
    return found


async def active(session: AsyncSession) -> PinnedMessage | None:
    query = select_rows(PinnedMessage).where(col(PinnedMessage.is_active).is_(True))
    return (await session.exec(query)).first()


async def list_messages(
    session: AsyncSession, *, active_only: bool, limit: int, offset: int
) -> tuple[int, Sequence[PinnedMessage]]:
    """How many there are, and one page of them, newest first."""
    conditions: list[Any] = [MESSAGES.c.is_active.is_(True)] if active_only else []
    total = (await session.exec(select_rows(func.count()).select_from(MESSAGES).where(*conditions))).one()
    query = (
        select_rows(PinnedMessage)
        .where(*conditions)
        .order_by(col(PinnedMessage.created_at).desc(), col(PinnedMessage.id).desc())
        .limit(limit)
        .offset(min(offset, 2**62))
    )
    return int(total), (await session.exec(query)).all()


async def create(
    session: AsyncSession, payload: PinnedMessageCreateRequest, created_by: int | None
) -> PinnedMessage:
    """A new message, active; the one active before is deactivated."""
    _check_media(payload.media)
    content = prepare_content(payload.content, payload.media is not None)
    creator = await existing_user(session, created_by)
    await lock_activation(session)
    await _deactivate_all(session)
    now = utcnow()
    message = PinnedMessage(
        content=content,
        media_type=payload.media.type if payload.media else None,
        media_file_id=payload.media.file_id if payload.media else None,
        send_before_menu=payload.send_before_menu,
        send_on_every_start=payload.send_on_every_start,
        is_active=True,
        created_by=creator,
        created_at=now,
        updated_at=now,
    )
    session.add(message)
    await _flush_active(session)
    return message


async def update_message(
    session: AsyncSession, message: PinnedMessage, payload: PinnedMessageUpdateRequest
) -> PinnedMessage:
    """Change the given fields (content checked as on creation); nothing is sent."""
    _check_media(payload.media)
    if payload.media is not None:
        message.media_type = payload.media.type
        message.media_file_id = payload.media.file_id
    if payload.content is not None:
        message.content = prepare_content(payload.content, message.media_file_id is not None)
    apply_settings(message, PinnedMessageSettingsRequest.model_validate(payload, from_attributes=True))
    await session.flush()
    return message


def apply_settings(message: PinnedMessage, payload: PinnedMessageSettingsRequest) -> PinnedMessage:
    """Change the given display settings."""
    if payload.send_before_menu is not None:
        message.send_before_menu = payload.send_before_menu
    if payload.send_on_every_start is not None:
        message.send_on_every_start = payload.send_on_every_start
    message.updated_at = utcnow()
    return message


async def activate(session: AsyncSession, message_id: int) -> PinnedMessage:
    """Make this message the active one (every other is deactivated); 404 when unknown."""
    await lock_activation(session)
    message = await get_or_404(session, message_id)
    if not message.is_active:
        await _deactivate_all(session)
        await session.flush()
        message.is_active = True
    message.updated_at = utcnow()
    await _flush_active(session)
    return message


async def deactivate_active(session: AsyncSession) -> PinnedMessage | None:
    """Deactivate the active message (nothing is unpinned in chats); it, or ``None``."""
    await lock_activation(session)
    message = await active(session)
    if message is not None:
        message.is_active = False
        message.updated_at = utcnow()
        await session.flush()
    return message

"""The rules of broadcasts: what may be sent, creating one (its recipients fixed when it
starts), stopping, the history, and the progress event."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, Table, insert, literal, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_segments.api import resolve, user_ids_query
from subsvc_tariffs.api import Tariff
from subsvc_users.api import User

from subsvc.api import from_attributes
from subsvc.api.refusal import Refusal
from subsvc.db import page_of, utcnow
from subsvc.messenger import CAPTION_LIMIT
from subsvc.services import services
from subsvc_broadcasts import buttons
from subsvc_broadcasts.models import (
    BROADCASTS,
    CANCELLED,
    CANCELLING,
    COMPLETED,
    IN_PROGRESS,
    PENDING,
    QUEUED,
    RECIPIENTS,
    SCHEDULED,
    STOPPABLE,
    Broadcast,
)
from subsvc_broadcasts.schemas import (
    BroadcastMedia,
    BroadcastProgress,
    BroadcastResponse,
    CustomBroadcastButton,
)

USERS: Table = User.metadata.tables["users"]
SEND_JOB = "broadcasts.send"
PROGRESS_EVENT = "broadcast.progress"
NOT_FOUND = "Broadcast not found"
NOT_RUNNING = "Broadcast is not running"
NOT_CONFIGURED = "The messenger bot is not configured (BOT_TOKEN): broadcasts cannot be sent"


class BroadcastRefused(Refusal):
    """A request the rules refuse: its HTTP status and the reference's text."""


@dataclass
class NewBroadcast:
    """What a create request asks for, whichever API area it came through."""

    target: str
    message_text: str
    selected_buttons: Sequence[str] = field(default_factory=lambda: list(buttons.DEFAULT_BUTTONS))
    media: BroadcastMedia | None = None
    send_at: datetime | None = None
    admin_id: int | None = None
    admin_name: str | None = None
    custom_buttons: Sequence[CustomBroadcastButton] = ()
    category: str = "system"


def caption_too_long(length: int) -> str:
    return (
        f"Текст слишком длинный для сообщения с медиа. Максимум {CAPTION_LIMIT} символов, "
        f"сейчас {length}. Сократите текст или уберите медиафайл."
    )


async def check_target(app: Starlette, session: AsyncSession, target: str) -> None:
    """400 ``Invalid target: <target>`` unless it names a segment (a ``tariff_<id>`` must exist)."""
    segment = resolve(app, target)
    refused = BroadcastRefused(400, f"Invalid target: {target}")
    if segment is None:
        raise refused
    if segment.name.startswith("tariff_") and await session.get(Tariff, segment.params["tariff_id"]) is None:
        raise refused


async def check(app: Starlette, session: AsyncSession, new: NewBroadcast) -> str:
    """The message text (trimmed) once the request passes the rules, else :class:`BroadcastRefused`."""
    await check_target(app, session, new.target)
    if buttons.unknown_buttons(new.selected_buttons):
        raise BroadcastRefused(400, "Invalid button key")
    text = new.message_text.strip()
    if not text:
        raise BroadcastRefused(400, "Message text must not be empty")
    if new.media is not None:
        caption = new.media.caption or text
        if len(caption) > CAPTION_LIMIT:
            raise BroadcastRefused(400, caption_too_long(len(caption)))
    return text


async def create(app: Starlette, session: AsyncSession, new: NewBroadcast) -> Broadcast:
    """Record the broadcast; unless it is scheduled for later, fix its recipients now and have
    the sender start once this transaction commits."""
    text = await check(app, session, new)
    if not services(app).messenger.configured:
        raise BroadcastRefused(503, NOT_CONFIGURED)
    now = utcnow()
    scheduled = new.send_at is not None and new.send_at > now
    media = new.media
    broadcast = Broadcast(
        target_type=new.target,
        message_text=text,
        has_media=media is not None,
        media_type=media.type if media else None,
        media_file_id=media.file_id if media else None,
        media_caption=media.caption if media else None,
        selected_buttons=list(dict.fromkeys(new.selected_buttons)),
        custom_buttons=[button.model_dump() for button in new.custom_buttons],
        category=new.category,
        status=SCHEDULED if scheduled else QUEUED,
        admin_id=new.admin_id,
        admin_name=new.admin_name,
        send_at=new.send_at if scheduled else None,
        created_at=now,
    )
    session.add(broadcast)
    await session.flush()
    if not scheduled:
        await fix_recipients(app, session, broadcast)
    publish_progress(app, session, broadcast)
    return broadcast


async def fix_recipients(app: Starlette, session: AsyncSession, broadcast: Broadcast) -> None:
    """One pending message per user of the target the bot can write to (a messenger id, no
    recent refusal: the segments plugin's rule), in one ``INSERT ... SELECT``. With nobody to
    write to the broadcast is completed at once; else the sender is asked for after commit."""
    assert broadcast.id is not None
    segment = resolve(app, broadcast.target_type)
    total = 0
    if segment is not None:
        rows = select(
            literal(broadcast.id, Integer), USERS.c.id, USERS.c.messenger_id, literal(PENDING)
        ).where(USERS.c.id.in_(user_ids_query(app, segment, reachable=True)))
        statement = insert(RECIPIENTS).from_select(["broadcast_id", "user_id", "messenger_id", "state"], rows)
        total = (await session.exec(statement)).rowcount
    broadcast.total_count = total
    if total == 0:
        broadcast.status = COMPLETED
        broadcast.started_at = broadcast.completed_at = utcnow()
    else:
        services(app).jobs.enqueue_after_commit(session, SEND_JOB, broadcast_id=broadcast.id)
    session.add(broadcast)
    await session.flush()


async def stop(app: Starlette, session: AsyncSession, broadcast_id: int) -> Broadcast:
    """Stop a broadcast: at once when no sender is at work on it (``cancelled``), else
    ``cancelling`` until its sender notices (before its next batch). Counts are kept."""
    broadcast = await session.get(Broadcast, broadcast_id, with_for_update=True)
    if broadcast is None:
        raise BroadcastRefused(404, NOT_FOUND)
    if broadcast.status not in STOPPABLE:
        raise BroadcastRefused(400, NOT_RUNNING)
    now = utcnow()
    sender_at_work = broadcast.lease_until is not None and broadcast.lease_until > now
    if broadcast.status in (IN_PROGRESS, CANCELLING, QUEUED) and sender_at_work:
        broadcast.status = CANCELLING
    else:
        broadcast.status = CANCELLED
        broadcast.completed_at = now
        broadcast.lease_owner = broadcast.lease_until = None
    session.add(broadcast)
    await session.flush()
    publish_progress(app, session, broadcast)
    return broadcast


async def history(session: AsyncSession, limit: int, offset: int) -> tuple[int, Sequence[Broadcast]]:
    """A page of broadcasts, newest first, and how many there are."""
    order = [BROADCASTS.c.created_at.desc(), BROADCASTS.c.id.desc()]
    broadcasts, total = await page_of(session, Broadcast, [], order, offset, limit)
    return total, broadcasts


def progress_percent(total: int, sent: int, failed: int, blocked: int) -> float:
    return round((sent + failed + blocked) / total * 100, 1) if total > 0 else 0.0


def _counts(row: Any) -> dict[str, Any]:
    """The counts and the progress of a broadcast (or a row with its counts), as both its
    record and its progress event carry them."""
    return {
        "total_count": row.total_count,
        "sent_count": row.sent_count,
        "failed_count": row.failed_count,
        "blocked_count": row.blocked_count,
        "unknown_count": row.unknown_count,
        "progress_percent": progress_percent(
            row.total_count, row.sent_count, row.failed_count, row.blocked_count
        ),
    }


def response(broadcast: Broadcast) -> BroadcastResponse:
    """The record as answered: its columns (not the lease), the counts and the progress."""
    chosen = list(broadcast.selected_buttons or [])
    return from_attributes(BroadcastResponse, broadcast, **_counts(broadcast), selected_buttons=chosen)


def progress_of(row: Any) -> BroadcastProgress:
    """The event's payload from a broadcast (or a row with its id, status and counts)."""
    return BroadcastProgress(broadcast_id=row.id, status=row.status, **_counts(row))


def publish_progress(app: Starlette, session: AsyncSession, row: Any) -> None:
    """Publish ``broadcast.progress`` in the session's transaction (to the admin sockets and
    webhooks once it commits)."""
    services(app).events.publish(session, PROGRESS_EVENT, progress_of(row))

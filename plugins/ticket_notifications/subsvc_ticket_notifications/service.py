"""Reading and marking in-app notifications: the ticket owner's, and each administrator's.

A user's rows carry their read state (``is_read``, ``read_at``). Administrators share the
admin rows, each with a read state of their own: a mark (every admin row up to
``read_up_to_id`` is read) and single reads above it. "Read all" moves the mark to the newest
row and drops that administrator's single reads, so the unread count is two index range
counts whatever the history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc_ticket_notifications.tables import MARKS, NOTIFICATIONS, READS, run, upsert

NOT_FOUND = "Notification not found"
NOT_YOURS = "You don't have permission to mark this notification as read"
NOT_ADMIN = "This is not an admin notification"

N = NOTIFICATIONS.c


@dataclass(frozen=True)
class NotificationView:
    """One notification as its reader sees it."""

    id: int
    ticket_id: int
    notification_type: str
    message: str | None
    is_read: bool
    created_at: datetime
    read_at: datetime | None


# --- the ticket owner's -------------------------------------------------------------------------


def _users_rows(user_id: int) -> sa.ColumnElement[bool]:
    return sa.and_(N.user_id == user_id, N.is_for_admin.is_(False))


async def user_notifications(
    session: AsyncSession, user_id: int, *, unread_only: bool, limit: int, offset: int
) -> list[NotificationView]:
    """The user's notifications, newest first."""
    where = _users_rows(user_id)
    if unread_only:
        where = sa.and_(where, N.is_read.is_(False))
    query = (
        sa.select(N.id, N.ticket_id, N.notification_type, N.message, N.is_read, N.created_at, N.read_at)
        .where(where)
        .order_by(N.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return [NotificationView(*row) for row in (await run(session, query)).all()]


async def user_unread_count(session: AsyncSession, user_id: int) -> int:
    query = sa.select(sa.func.count()).where(_users_rows(user_id), N.is_read.is_(False))
    return int((await run(session, query)).scalar_one())


async def _mark_users(session: AsyncSession, where: sa.ColumnElement[bool]) -> int:
    """Mark the user's unread rows matching ``where`` read; how many."""
    statement = (
        sa.update(NOTIFICATIONS).where(where, N.is_read.is_(False)).values(is_read=True, read_at=utcnow())
    )
    return int((await run(session, statement)).rowcount)


async def mark_user_notification(session: AsyncSession, user_id: int, notification_id: int) -> None:
    """Mark one of the user's notifications read (a read one keeps its first ``read_at``)."""
    row = (await run(session, sa.select(N.user_id, N.is_for_admin).where(N.id == notification_id))).first()
    if row is None:
        raise HTTPError(404, NOT_FOUND)
    if row.user_id != user_id or row.is_for_admin:
        raise HTTPError(403, NOT_YOURS)
    await _mark_users(session, N.id == notification_id)


async def mark_all_user_notifications(session: AsyncSession, user_id: int) -> int:
    return await _mark_users(session, _users_rows(user_id))


async def mark_user_ticket_notifications(session: AsyncSession, user_id: int, ticket_id: int) -> int:
    return await _mark_users(session, sa.and_(_users_rows(user_id), N.ticket_id == ticket_id))


# --- administrators' ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """An administrator's mark: everything up to ``up_to`` read (at ``at``)."""

    up_to: int = 0
    at: datetime | None = None


async def admin_mark(session: AsyncSession, admin_id: int) -> Mark:
    row = (
        await run(
            session,
            sa.select(MARKS.c.read_up_to_id, MARKS.c.marked_at).where(MARKS.c.admin_user_id == admin_id),
        )
    ).first()
    return Mark(row.read_up_to_id, row.marked_at) if row is not None else Mark()


def _admin_rows_above(mark: Mark) -> sa.ColumnElement[bool]:
    return sa.and_(N.is_for_admin.is_(True), N.id > mark.up_to)


def _reads_of(admin_id: int) -> sa.ColumnElement[bool]:
    return sa.and_(READS.c.admin_user_id == admin_id, READS.c.notification_id == N.id)


async def admin_notifications(
    session: AsyncSession, admin_id: int, *, unread_only: bool, limit: int, offset: int
) -> list[NotificationView]:
    """The admin rows, newest first, read or not for this administrator."""
    mark = await admin_mark(session, admin_id)
    where: sa.ColumnElement[bool] = N.is_for_admin.is_(True)
    if unread_only:
        where = sa.and_(_admin_rows_above(mark), READS.c.notification_id.is_(None))
    query = (
        sa.select(N.id, N.ticket_id, N.notification_type, N.message, N.created_at, READS.c.read_at)
        .select_from(NOTIFICATIONS.outerjoin(READS, _reads_of(admin_id)))
        .where(where)
        .order_by(N.id.desc())
        .limit(limit)
        .offset(offset)
    )
    views = []
    for row in (await run(session, query)).all():
        read_at = row.read_at if row.read_at is not None else mark.at if row.id <= mark.up_to else None
        views.append(
            NotificationView(
                row.id,
                row.ticket_id,
                row.notification_type,
                row.message,
                read_at is not None,
                row.created_at,
                read_at,
            )
        )
    return views


async def admin_unread_count(session: AsyncSession, admin_id: int) -> int:
    """Admin rows above the mark, less this administrator's single reads above it."""
    mark = await admin_mark(session, admin_id)
    above = sa.select(sa.func.count()).select_from(NOTIFICATIONS).where(_admin_rows_above(mark))
    reads = (
        sa.select(sa.func.count())
        .select_from(READS)
        .where(READS.c.admin_user_id == admin_id, READS.c.notification_id > mark.up_to)
    )
    total = (await run(session, sa.select(above.scalar_subquery(), reads.scalar_subquery()))).one()
    return max(0, int(total[0]) - int(total[1]))


async def _read_admin_rows(
    session: AsyncSession, admin_id: int, mark: Mark, where: sa.ColumnElement[bool]
) -> int:
    """Record this administrator's reads of the unread admin rows matching ``where``; how many."""
    unread = sa.select(sa.literal(admin_id), N.id, sa.literal(utcnow(), READS.c.read_at.type)).where(
        _admin_rows_above(mark), where, ~sa.exists().where(_reads_of(admin_id))
    )
    insert = upsert(session, READS).from_select(["admin_user_id", "notification_id", "read_at"], unread)
    result = await run(
        session, insert.on_conflict_do_nothing(index_elements=["admin_user_id", "notification_id"])
    )
    return int(result.rowcount)


async def mark_admin_notification(session: AsyncSession, admin_id: int, notification_id: int) -> None:
    row = (await run(session, sa.select(N.is_for_admin).where(N.id == notification_id))).first()
    if row is None:
        raise HTTPError(404, NOT_FOUND)
    if not row.is_for_admin:
        raise HTTPError(403, NOT_ADMIN)
    await _read_admin_rows(session, admin_id, await admin_mark(session, admin_id), N.id == notification_id)


async def mark_admin_ticket_notifications(session: AsyncSession, admin_id: int, ticket_id: int) -> int:
    mark = await admin_mark(session, admin_id)
    return await _read_admin_rows(session, admin_id, mark, N.ticket_id == ticket_id)


async def mark_all_admin_notifications(session: AsyncSession, admin_id: int) -> int:
    """Move the administrator's mark to the newest admin row and drop their single reads;
    how many rows were unread."""
    unread = await admin_unread_count(session, admin_id)
    newest = (
        await run(session, sa.select(sa.func.max(N.id)).where(N.is_for_admin.is_(True)))
    ).scalar_one_or_none()
    if newest is None:
        return 0
    insert = upsert(session, MARKS).values(admin_user_id=admin_id, read_up_to_id=newest, marked_at=utcnow())
    kept = MARKS.c.read_up_to_id
    moved = insert.on_conflict_do_update(
        index_elements=["admin_user_id"],
        set_={
            "read_up_to_id": sa.case(
                (insert.excluded.read_up_to_id > kept, insert.excluded.read_up_to_id), else_=kept
            ),
            "marked_at": insert.excluded.marked_at,
        },
    )
    await run(session, moved)
    await run(
        session, sa.delete(READS).where(READS.c.admin_user_id == admin_id, READS.c.notification_id <= newest)
    )
    return unread

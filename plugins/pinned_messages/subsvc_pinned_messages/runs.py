"""Runs: a broadcast (send and pin) or an unpin of a message in every reachable user's chat.

Starting a run records it with one pending row per recipient (one ``INSERT ... SELECT``: the
active users the bot can write to, by the segments plugin's rule) and has the background job
(:mod:`.sender`) send it once the transaction commits. A new run cancels the unfinished ones
(their pending recipients are skipped): the chats end up with the latest pin or unpin.
"""

from __future__ import annotations

from sqlalchemy import Integer, Table, insert, literal, select, update
from sqlmodel import select as select_rows
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_segments.api import resolve, user_ids_query
from subsvc_users.api import User

from subsvc.api import from_attributes
from subsvc.db import in_list, utcnow
from subsvc.services import services
from subsvc_pinned_messages.messages import is_row_id, lock_activation
from subsvc_pinned_messages.models import BROADCAST, DELIVERIES, RUNS, PinnedMessage, PinnedMessageRun
from subsvc_pinned_messages.schemas import PinnedMessageRunFinished

USERS: Table = User.metadata.tables["users"]
UNFINISHED = ("queued", "running")
SEND_JOB = "pinned_messages.send_run"
FINISHED_EVENT = "pinned_message.broadcast_finished"
EVERYONE = "all"


def finished_event(run: PinnedMessageRun) -> PinnedMessageRunFinished:
    """The event's payload: the run's id (as ``broadcast_id``), kind, status and counts."""
    return from_attributes(PinnedMessageRunFinished, run, broadcast_id=run.id)


async def cancel_unfinished(app: Starlette, session: AsyncSession, message_id: int | None = None) -> None:
    """Cancel the unfinished runs (of one message, when given): their pending recipients are
    skipped; a sender working on one stops after its batch."""
    query = select_rows(RUNS.c.id).where(RUNS.c.status.in_(UNFINISHED))
    if message_id is not None:
        query = query.where(RUNS.c.message_id == message_id)
    run_ids = list((await session.exec(query)).all())
    if not run_ids:
        return
    now = utcnow()
    for run_id in run_ids:  # the run rows first: a sender locks its run, then its recipients
        run = await session.get(PinnedMessageRun, run_id)
        if run is None:
            continue
        run.status, run.completed_at, run.lease_until = "cancelled", now, None
        services(app).events.publish(session, FINISHED_EVENT, finished_event(run))
    await session.flush()
    await session.exec(
        update(DELIVERIES)
        .where(
            in_list(DELIVERIES.c.run_id, "run_ids", session.get_bind().dialect.name),
            DELIVERIES.c.state == "pending",
        )
        .values(state="skipped"),
        params={"run_ids": run_ids},
    )


async def start_run(
    app: Starlette, session: AsyncSession, kind: str, message: PinnedMessage | None, created_by: int | None
) -> PinnedMessageRun:
    """Record a run of ``kind`` for every reachable user and have it sent after the commit."""
    await lock_activation(session)
    await cancel_unfinished(app, session)
    now = utcnow()
    run = PinnedMessageRun(
        message_id=message.id if message else None,
        kind=kind,
        content=message.content if message and kind == BROADCAST else "",
        media_type=message.media_type if message and kind == BROADCAST else None,
        media_file_id=message.media_file_id if message and kind == BROADCAST else None,
        created_by=created_by,
        created_at=now,
    )
    session.add(run)
    await session.flush()
    segment = resolve(app, EVERYONE, now)
    assert segment is not None and run.id is not None
    recipients = (
        select(literal(run.id, Integer), USERS.c.id, USERS.c.messenger_id)
        .where(USERS.c.id.in_(user_ids_query(app, segment, reachable=True)))
        .order_by(USERS.c.id)
    )
    result = await session.exec(
        insert(DELIVERIES).from_select(["run_id", "user_id", "messenger_id"], recipients)
    )
    run.total_count = max(result.rowcount, 0)
    if run.total_count:
        services(app).jobs.enqueue_after_commit(session, SEND_JOB, run_id=run.id)
    else:
        run.status, run.started_at, run.completed_at = "completed", now, now
        services(app).events.publish(session, FINISHED_EVENT, finished_event(run))
    await session.flush()
    return run


async def delete_message(app: Starlette, session: AsyncSession, message: PinnedMessage) -> None:
    """Delete the message (even the active one; nothing is unpinned in chats) and cancel its
    unfinished broadcasts."""
    await lock_activation(session)
    await cancel_unfinished(app, session, message.id)
    await session.delete(message)
    await session.flush()


async def get_run(session: AsyncSession, run_id: int) -> PinnedMessageRun | None:
    return await session.get(PinnedMessageRun, run_id) if is_row_id(run_id) else None

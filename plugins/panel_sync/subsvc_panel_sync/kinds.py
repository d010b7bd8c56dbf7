"""What each kind of full sync does, page by page (``PANEL_SYNC_BATCH_SIZE`` subscriptions
or panel users at a time; panel calls at most ``PANEL_SYNC_CONCURRENCY`` at once). After
every page the run's record is saved with its cursor, so a run taken up again goes on from
there.

- ``to_panel``: every subscription is compared with its panel user; missing ones are
  created, differing ones updated, others left alone.
- ``validate``: the same comparison without calling the panel; what differs is queued
  (the change queue pushes it, with its retries).
- ``cleanup``: panel users named by this plugin whose subscription no longer exists are
  disabled; recorded panel uuids the panel no longer has are forgotten and re-queued; the
  sync states of removed subscriptions with nothing queued are deleted.
- ``statuses``: used traffic and the panel's LIMITED / EXPIRED verdicts are copied into
  the subscriptions.
- ``from_panel`` (mode ``all``, ``new_only``, ``update_only``): panel users are brought
  into our users and subscriptions (see :mod:`subsvc_panel_sync.importing`).
- ``auto``: ``from_panel`` (``all``), then the servers sync when that plugin runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from subsvc_panel.api import PanelClient, PanelError, client_of
from subsvc_subscriptions import api as subscriptions

from subsvc.db import in_list, utcnow
from subsvc.services import services
from subsvc_panel_sync import importing
from subsvc_panel_sync.index import PanelIndex
from subsvc_panel_sync.mapping import DISABLED, Wanted, gib, short_id_of
from subsvc_panel_sync.models import SYNCED
from subsvc_panel_sync.progress import Run
from subsvc_panel_sync.push import Pushed
from subsvc_panel_sync.queries import STATES, SUBSCRIPTIONS, run_sql, statements
from subsvc_panel_sync.queue import PUSH_JOB, push_all, record

Runner = Callable[[Run], Awaitable[None]]


def _client(run: Run) -> PanelClient:
    return client_of(run.app)


async def _count_subscriptions(run: Run) -> int:
    async with run.db.session(read_only=True) as session:
        return int(
            (await run_sql(session, sa.select(sa.func.count()).select_from(SUBSCRIPTIONS))).scalar_one()
        )


async def _pages(run: Run) -> Any:
    """Our subscriptions (as :class:`Wanted`) page by page from the run's cursor."""
    limit = run.settings.PANEL_SYNC_BATCH_SIZE
    query = statements(run.db.dialect)["page"]
    while not run.stopping:
        async with run.db.session(read_only=True) as session:
            rows = (
                await run_sql(session, query, params={"after": run.cursor.get("after", 0), "limit": limit})
            ).all()
        if not rows:
            return
        yield [Wanted.of(row) for row in rows]


async def _page_done(run: Run, page: list[Wanted]) -> None:
    run.processed += len(page)
    run.cursor["after"] = page[-1].subscription_id
    await run.save()


def _tally(run: Run, outcomes: list[Pushed]) -> None:
    for outcome in outcomes:
        if outcome.error is not None:
            run.error(f"subscription {outcome.wanted.subscription_id}: {outcome.error}")
        else:
            run.count(outcome.action)


async def to_panel(run: Run) -> None:
    run.total = await _count_subscriptions(run)
    index = await PanelIndex.load(_client(run), run.settings.PANEL_SYNC_BATCH_SIZE)
    concurrency = run.settings.PANEL_SYNC_CONCURRENCY
    async for page in _pages(run):
        items = [(wanted, index.find(wanted)) for wanted in page]
        outcomes = await push_all(_client(run), items, concurrency, looked_up=True)
        await record(run.db, run.settings, outcomes)
        _tally(run, outcomes)
        await _page_done(run, page)


async def _queue(run: Run, wanted: list[Wanted]) -> None:
    """Queue these subscriptions for the change queue, as if they had changed."""
    if not wanted:
        return
    now = utcnow()
    rows = [
        {
            "subscription_id": w.subscription_id,
            "user_id": w.user_id,
            "short_id": w.short_id,
            "status": "pending",
            "version": 1,
            "synced_version": 0,
            "attempts": 0,
            "pending_actions": 0,
            "next_attempt_at": now,
            "updated_at": now,
        }
        for w in wanted
    ]
    async with run.db.session() as session:
        await run_sql(session, statements(run.db.dialect)["changed"], params=rows)
        services(run.app).jobs.enqueue_after_commit(session, PUSH_JOB)
        await session.commit()


async def validate(run: Run) -> None:
    run.total = await _count_subscriptions(run)
    index = await PanelIndex.load(_client(run), run.settings.PANEL_SYNC_BATCH_SIZE)
    result = {"checked": 0, "missing_in_panel": 0, "mismatched": 0, "in_sync": 0, "queued": 0}
    async for page in _pages(run):
        fix, fine = [], []
        for wanted in page:
            panel_user = index.find(wanted)
            if panel_user is None:
                result["missing_in_panel"] += 1
                fix.append(wanted)
            elif wanted.differences(panel_user):
                result["mismatched"] += 1
                fix.append(wanted)
            else:
                fine.append(Pushed(wanted, "unchanged", str(panel_user["uuid"])))
        await _queue(run, fix)
        await record(run.db, run.settings, fine)
        result["checked"] += len(page)
        result["queued"] += len(fix)
        result["in_sync"] += len(fine)
        run.count("updated", len(fix))
        run.count("unchanged", len(fine))
        run.result = dict(result)
        await _page_done(run, page)


async def cleanup(run: Run) -> None:
    client = _client(run)
    index = await PanelIndex.load(client, run.settings.PANEL_SYNC_BATCH_SIZE)
    users = list(index.by_uuid.values())
    run.total = len(users)
    size = run.settings.PANEL_SYNC_BATCH_SIZE
    gate = asyncio.Semaphore(run.settings.PANEL_SYNC_CONCURRENCY)
    query = sa.select(SUBSCRIPTIONS.c.short_id).where(
        in_list(SUBSCRIPTIONS.c.short_id, "ids", run.db.dialect)
    )

    async def disable(user: dict[str, Any]) -> None:
        async with gate:
            try:
                await client.disable_user(str(user["uuid"]))
            except PanelError as exc:
                run.error(f"panel user {user.get('username')}: {exc.message}")
            else:
                run.count("disabled")

    start = int(run.cursor.get("start", 0))
    for offset in range(start, len(users), size):
        if run.stopping:
            return
        page = users[offset : offset + size]
        ours = {short_id_of(u.get("username")): u for u in page}
        ours.pop(None, None)
        async with run.db.session(read_only=True) as session:
            known = set((await run_sql(session, query, params={"ids": list(ours)})).scalars().all())
        orphans = [u for short_id, u in ours.items() if short_id not in known]
        live = [u for u in orphans if str(u.get("status") or "").upper() != DISABLED]
        await asyncio.gather(*(disable(u) for u in live))
        run.count("unchanged", len(page) - len(live))
        run.processed += len(page)
        run.cursor["start"] = offset + len(page)
        run.result["orphans"] = run.result.get("orphans", 0) + len(orphans)
        await run.save()
    run.result["requeued"] = await _forget_lost_uuids(run, index)
    run.result["forgotten"] = await _forget_removed(run)


async def _forget_removed(run: Run) -> int:
    """Sync states of removed subscriptions with no change waiting (a removal that queued
    none): nothing is left to push for them."""
    exists = sa.exists().where(SUBSCRIPTIONS.c.id == STATES.c.subscription_id)
    async with run.db.session() as session:
        result = await run_sql(session, sa.delete(STATES).where(STATES.c.status == SYNCED, ~exists))
        await session.commit()
    return int(result.rowcount or 0)


async def _forget_lost_uuids(run: Run, index: PanelIndex) -> int:
    """Sync states whose panel user is gone: uuid forgotten, queued again (recreated)."""
    async with run.db.session(read_only=True) as session:
        rows = (
            await run_sql(
                session,
                sa.select(STATES.c.subscription_id, STATES.c.panel_uuid).where(
                    STATES.c.panel_uuid.is_not(None)
                ),
            )
        ).all()
    lost = [row.subscription_id for row in rows if row.panel_uuid not in index.by_uuid]
    if lost:
        async with run.db.session() as session:
            for offset in range(0, len(lost), 1000):
                chunk = lost[offset : offset + 1000]
                await run_sql(
                    session,
                    sa.update(STATES)
                    .where(in_list(STATES.c.subscription_id, "ids", run.db.dialect))
                    .values(
                        panel_uuid=None,
                        status="pending",
                        next_attempt_at=utcnow(),
                        version=STATES.c.version + 1,
                    ),
                    params={"ids": chunk},
                )
            services(run.app).jobs.enqueue_after_commit(session, PUSH_JOB)
            await session.commit()
    return len(lost)


def _status_from_panel(stored: str, panel_status: str, ended: bool) -> str:
    if panel_status == "LIMITED" and stored in ("active", "trial"):
        return "limited"
    if panel_status == "EXPIRED" and stored in ("active", "trial") and ended:
        return "expired"
    if panel_status == "ACTIVE" and stored == "limited":
        return "active"
    return stored


async def statuses(run: Run) -> None:
    run.total = await _count_subscriptions(run)
    index = await PanelIndex.load(_client(run), run.settings.PANEL_SYNC_BATCH_SIZE)
    missing = 0
    async for page in _pages(run):
        now = utcnow()
        changes = []
        moved = 0
        for wanted in page:
            panel_user = index.find(wanted)
            if panel_user is None:
                missing += 1
                continue
            used = round(gib(panel_user.get("usedTrafficBytes")), 3)
            status = _status_from_panel(
                wanted.status, str(panel_user.get("status") or "").upper(), wanted.end_date <= now
            )
            moved += status != wanted.status
            changes.append((wanted.subscription_id, status, used))
        if changes:
            async with run.db.session() as session:
                await subscriptions.write_panel_statuses(session, changes, now)
                await session.commit()
        run.count("updated", moved)
        run.count("unchanged", len(page) - moved)
        run.result["missing_in_panel"] = missing
        await _page_done(run, page)


async def from_panel(run: Run) -> None:
    await importing.from_panel(run, _client(run))


async def auto(run: Run) -> None:
    await importing.from_panel(run, _client(run))
    run.result["user_stats"] = {
        "created": run.created, "updated": run.updated, "unchanged": run.unchanged, "errors": run.error_count
    }  # fmt: skip
    run.result["server_stats"] = await importing.sync_servers(run.app)


RUNNERS: dict[str, Runner] = {
    "to_panel": to_panel,
    "validate": validate,
    "cleanup": cleanup,
    "statuses": statuses,
    "from_panel": from_panel,
    "auto": auto,
}

"""The durable queue of subscription changes for the panel.

Every committed ``subscription.changed`` has, in the same transaction, bumped the
subscription's row in ``panel_sync_states`` (``version`` + 1, ``pending``, due now): a
change is recorded exactly when it is committed, and survives any restart. The job
``panel_sync.push`` (enqueued after each such commit, and run every
``PANEL_SYNC_POLL_SECONDS`` by every worker) drains what is due: it claims rows (moving
``next_attempt_at`` a lease ahead; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL), reads the
subscriptions' *current* state, pushes it (:func:`subsvc_panel_sync.push.push`, at most
``PANEL_SYNC_CONCURRENCY`` calls at once) and records the outcome: ``synced`` (unless a
newer change came meanwhile: then ``pending`` again), or ``failed`` with the error and the
next attempt after an exponential backoff. Several changes queued while the panel was down
become one push of the latest state.

A row outlives its subscription. A removal publishes its last change (``disabled``) before
the subscription's row goes, so that change is queued like any other; a claimed row whose
subscription is gone disables the panel user (:func:`subsvc_panel_sync.push.disable_removed`)
and is then deleted.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session
from starlette.applications import Starlette
from subsvc_panel.api import PanelClient, client_of
from subsvc_subscriptions import api as subscriptions

from subsvc.backoff import Backoff
from subsvc.db import Database, is_database_unavailable, utcnow, write_batch
from subsvc.events import Event
from subsvc.services import services
from subsvc_panel_sync.mapping import Wanted
from subsvc_panel_sync.models import ACTION_BITS, FAILED, PENDING, SYNCED
from subsvc_panel_sync.push import Disabled, Pushed, Removed, disable_removed, push
from subsvc_panel_sync.queries import run_sql, statements
from subsvc_panel_sync.settings import PanelSyncSettings

log = logging.getLogger("subsvc.panel_sync")
PUSH_JOB = "panel_sync.push"
SUBSCRIPTION_CHANGED = "subscription.changed"


def record_changes(session: Session, events: list[Event]) -> bool:
    """In the publishing transaction: queue every changed subscription (one row each), with
    the actions its changes ask of the panel (bits OR-ed). Returns whether anything was queued."""
    changes: Counter[tuple[int, int, str]] = Counter()
    actions: dict[tuple[int, int, str], int] = {}
    for event in events:
        if event.type != SUBSCRIPTION_CHANGED:
            continue
        key = (
            int(event.payload["subscription_id"]),
            int(event.payload["user_id"]),
            str(event.payload["short_id"]),
        )
        changes[key] += 1
        actions[key] = actions.get(key, 0) | action_bits(event.payload.get("panel_actions") or ())
    if not changes:
        return False
    now = utcnow()
    dialect = session.get_bind().dialect.name
    rows = [
        {
            "subscription_id": subscription_id,
            "user_id": user_id,
            "short_id": short_id,
            "status": PENDING,
            "version": count,
            "synced_version": 0,
            "attempts": 0,
            "pending_actions": actions[(subscription_id, user_id, short_id)],
            "next_attempt_at": now,
            "updated_at": now,
        }
        for (subscription_id, user_id, short_id), count in sorted(changes.items())
    ]
    session.execute(statements(dialect)["changed"], rows)
    return True


def action_bits(names: Iterable[str]) -> int:
    """The bits of ``pending_actions`` for these action names (unknown names are ignored)."""
    bits = 0
    for name in names:
        bits |= ACTION_BITS.get(name, 0)
    return bits


def retry_delay(settings: PanelSyncSettings, attempts: int) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones (exponential, capped)."""
    backoff = Backoff(
        settings.PANEL_SYNC_RETRY_BASE_SECONDS,
        settings.PANEL_SYNC_RETRY_FACTOR,
        settings.PANEL_SYNC_RETRY_MAX_SECONDS,
    )
    return backoff.seconds(attempts)


async def load_wanted(db: Database, ids: Sequence[int]) -> list[Wanted]:
    """The current state of these subscriptions (gone ones are left out)."""
    async with db.session() as session:
        rows = (await run_sql(session, statements(db.dialect)["by_ids"], params={"ids": list(ids)})).all()
    return [Wanted.of(row) for row in rows]


async def load_removed(db: Database, ids: Sequence[int]) -> list[Removed]:
    """The queued rows of these ids whose subscription is gone."""
    async with db.session() as session:
        rows = (await run_sql(session, statements(db.dialect)["removed"], params={"ids": list(ids)})).all()
    return [Removed.of(row) for row in rows]


async def disable_all(client: PanelClient, removed: Sequence[Removed], concurrency: int) -> list[Disabled]:
    """Disable every removed subscription's panel user, at most ``concurrency`` at once."""
    gate = asyncio.Semaphore(concurrency)

    async def one(item: Removed) -> Disabled:
        async with gate:
            return await disable_removed(client, item)

    return list(await asyncio.gather(*(one(item) for item in removed)))


async def push_all(
    client: PanelClient,
    items: Sequence[tuple[Wanted, dict[str, Any] | None]],
    concurrency: int,
    *,
    looked_up: bool,
) -> list[Pushed]:
    """Push every item, at most ``concurrency`` at once, in order."""
    gate = asyncio.Semaphore(concurrency)

    async def one(wanted: Wanted, panel_user: dict[str, Any] | None) -> Pushed:
        async with gate:
            return await push(client, wanted, panel_user, looked_up=looked_up)

    return list(await asyncio.gather(*(one(w, p) for w, p in items)))


async def record(
    db: Database,
    settings: PanelSyncSettings,
    outcomes: Sequence[Pushed],
    attempts: dict[int, int] | None = None,
    removals: Sequence[Disabled] = (),
) -> None:
    """Write what the pushes did: synced rows in one statement, failures with their retry;
    a removed subscription's row is deleted once its panel user is disabled.

    An outcome is recorded even when its subscription was removed meanwhile: that removal
    queued a change (the row stays pending), and the panel uuid found is what disabling needs.

    One outcome never costs the others theirs: when the database refuses them together (not
    for being unreachable), each is recorded alone (:func:`subsvc.db.write_batch`). A push
    refused alone is recorded without the panel's uuid (what the panel answered is what could
    not be stored); an outcome still refused is logged and left claimed, due again when its
    lease ends.
    """
    items: list[Pushed | Disabled] = [*outcomes, *removals]
    await write_batch(
        functools.partial(_record, db, settings, attempts),
        items,
        stand_in=_without_uuid,
        describe=_describe,
        what="panel sync outcomes",
        logger=log,
    )


def _describe(item: Pushed | Disabled) -> str:
    sid = item.wanted.subscription_id if isinstance(item, Pushed) else item.removed.subscription_id
    return f"subscription {sid}: the panel push"


def _without_uuid(item: Pushed | Disabled, reason: str) -> Pushed | None:
    """A push refused alone, without the panel's uuid (what the panel answered)."""
    if isinstance(item, Pushed) and item.panel_uuid is not None:
        return replace(item, panel_uuid=None)
    return None


async def _record(
    db: Database, settings: PanelSyncSettings, attempts: dict[int, int] | None, items: list[Pushed | Disabled]
) -> None:
    """:func:`record` of a batch of pushes and removals, in one transaction."""
    outcomes = [item for item in items if isinstance(item, Pushed)]
    removals = [item for item in items if isinstance(item, Disabled)]
    now = utcnow()
    queries = statements(db.dialect)
    done = [o for o in outcomes if o.error is None]
    failed = [o for o in outcomes if o.error is not None]
    performed = [
        {"sid": o.wanted.subscription_id, "done_version": o.wanted.version, "done": o.actions_done}
        for o in outcomes
        if o.actions_done
    ]
    async with db.session() as session:
        if performed:
            await run_sql(session, queries["actions_done"], params=performed)
        if done:
            await run_sql(session, queries["synced"], params=[_synced_row(o, now) for o in done])
        for outcome in failed:
            tried = (attempts or {}).get(outcome.wanted.subscription_id, 0) + 1
            retry_at = now + timedelta(seconds=retry_delay(settings, tried))
            await run_sql(session, queries["failed"], params=_failed_row(outcome, now, retry_at))
        forgotten = [
            {"sid": d.removed.subscription_id, "done_version": d.removed.version}
            for d in removals
            if d.error is None
        ]
        if forgotten:
            await run_sql(session, queries["forget"], params=forgotten)
        for disabled in removals:
            if disabled.error is not None:
                tried = (attempts or {}).get(disabled.removed.subscription_id, 0) + 1
                retry_at = now + timedelta(seconds=retry_delay(settings, tried))
                params = {
                    "sid": disabled.removed.subscription_id,
                    "error": disabled.error,
                    "retry_at": retry_at,
                    "now": now,
                }
                await run_sql(session, queries["removal_failed"], params=params)
        await session.commit()
    # the subscriptions' own flag and links, in a transaction of their own (no lock-order cycle)
    for state, outcomes_in_state in ((SYNCED, done), (FAILED, failed)):
        if outcomes_in_state:
            async with db.session() as session:
                ids = [o.wanted.subscription_id for o in outcomes_in_state]
                await subscriptions.set_panel_sync_state(session, ids, state)
                await session.commit()
    await _write_links(db, done, now)


async def _write_links(db: Database, outcomes: Sequence[Pushed], now: datetime) -> None:
    """The subscription URL and crypto link the panel answered, where ours differ (after the
    first push of a subscription, or after its link was revoked)."""
    changed = [o for o in outcomes if o.links[0] is not None and o.links != _links(o.wanted)]
    if not changed:
        return
    async with db.session() as session:
        for outcome in changed:
            url, crypto_link = outcome.links
            state = subscriptions.PanelState(subscription_url=url, subscription_crypto_link=crypto_link)
            await subscriptions.write_panel_state(session, outcome.wanted.subscription_id, state, now)
        await session.commit()


def _links(wanted: Wanted) -> tuple[str | None, str | None]:
    return wanted.subscription_url, wanted.subscription_crypto_link


def _row(outcome: Pushed, now: datetime, **values: Any) -> dict[str, Any]:
    """The state row of a push's subscription with these ``values``."""
    wanted = outcome.wanted
    ids = {"subscription_id": wanted.subscription_id, "user_id": wanted.user_id, "short_id": wanted.short_id}
    return {**ids, **values, "updated_at": now}


def _failed_row(outcome: Pushed, now: datetime, retry_at: datetime) -> dict[str, Any]:
    version = max(outcome.wanted.version, 1)
    return _row(
        outcome,
        now,
        status=FAILED,
        version=version,
        synced_version=0,
        attempts=1,
        next_attempt_at=retry_at,
        error=outcome.error,
    )


def _synced_row(outcome: Pushed, now: datetime) -> dict[str, Any]:
    version = outcome.wanted.version
    return _row(
        outcome,
        now,
        status=SYNCED,
        version=version,
        synced_version=version,
        attempts=0,
        next_attempt_at=None,
        panel_uuid=outcome.panel_uuid,
        synced_at=now,
        error=None,
    )


class Pusher:
    """The queue's drain loop in one process (one drain at a time; a call during one makes it
    look again)."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.db: Database = services(app).db
        self._draining = False
        self._again = False

    @property
    def settings(self) -> PanelSyncSettings:
        return PanelSyncSettings.of(self.app)

    async def drain(self) -> None:
        if self._draining:
            self._again = True
            return
        self._draining = True
        try:
            while True:
                self._again = False
                pushed = await self._once()
                if not pushed and not self._again:
                    return
                if services(self.app).jobs.stopping:
                    return
        finally:
            self._draining = False

    async def _once(self) -> int:
        client = client_of(self.app)
        if not client.configured:
            return 0  # changes stay pending until a panel is configured
        settings = self.settings
        claimed = await self._claim(settings.PANEL_SYNC_CONCURRENCY * 4, settings.PANEL_SYNC_LEASE_SECONDS)
        if not claimed:
            return 0
        wanted = await load_wanted(self.db, sorted(claimed))
        found = {w.subscription_id for w in wanted}
        removed = (
            await load_removed(self.db, sorted(set(claimed) - found)) if len(found) < len(claimed) else []
        )
        outcomes = await push_all(
            client, [(w, None) for w in wanted], settings.PANEL_SYNC_CONCURRENCY, looked_up=False
        )
        removals = await disable_all(client, removed, settings.PANEL_SYNC_CONCURRENCY)
        try:
            await record(self.db, settings, outcomes, claimed, removals)
        except Exception as exc:  # not recorded: due again when the lease ends
            if not is_database_unavailable(exc):
                raise
            log.warning(
                "could not record %d panel pushes: database unavailable", len(outcomes) + len(removals)
            )
        return len(claimed)

    async def _claim(self, limit: int, lease_seconds: float) -> dict[int, int]:
        now = utcnow()
        async with self.db.session() as session:
            rows = (
                await run_sql(
                    session,
                    statements(self.db.dialect)["claim"],
                    params={
                        "now": now,
                        "limit": limit,
                        "lease_until": now + timedelta(seconds=lease_seconds),
                    },
                )
            ).all()
            await session.commit()
        return {row.subscription_id: row.attempts for row in rows}

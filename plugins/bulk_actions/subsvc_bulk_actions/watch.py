"""Requests waiting for a run's progress: woken at once by this process's applier, else they
read again every ``BULK_ACTIONS_POLL_SECONDS`` (the run applied by another process)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette

from subsvc.services import services
from subsvc_bulk_actions.settings import BulkActionsSettings


def _waiters(app: Starlette) -> dict[int, set[asyncio.Event]]:
    found: dict[int, set[asyncio.Event]] | None = getattr(app.state, "bulk_actions_waiters", None)
    if found is None:
        found = app.state.bulk_actions_waiters = {}
    return found


def notify(app: Starlette, run_id: int) -> None:
    """Wake every request of this process watching the run."""
    for event in _waiters(app).get(run_id, ()):
        event.set()


@contextlib.asynccontextmanager
async def watching(app: Starlette, run_id: int) -> AsyncIterator[asyncio.Event]:
    """An event set when the run moves (register before reading, then read, then wait)."""
    event = asyncio.Event()
    waiters = _waiters(app)
    waiters.setdefault(run_id, set()).add(event)
    try:
        yield event
    finally:
        waiters[run_id].discard(event)
        if not waiters[run_id]:
            del waiters[run_id]


async def moved(app: Starlette, event: asyncio.Event) -> bool:
    """Wait for the run to move (or the poll interval); ``False`` once the app is stopping."""
    if services(app).jobs.stopping:
        return False
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout=BulkActionsSettings.of(app).BULK_ACTIONS_POLL_SECONDS)
    event.clear()
    return not services(app).jobs.stopping

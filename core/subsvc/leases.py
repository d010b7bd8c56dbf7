"""A run sent to many recipients batch by batch by one sender at a time (a lease on the run's
row: ``status`` and ``lease_until`` columns), as the broadcasts and pinned messages do.

The run's own rules (what a claim checks, what an outcome counts) stay in its plugin; this
module is the shape they share: whether a run's lease is free, the upkeep that asks for a
sender for every unfinished run nobody holds, the loop over batches, sending a batch a few
calls at a time, and saving its outcomes (one refused costs only itself).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Table, Update, or_, update
from sqlmodel import select
from starlette.applications import Starlette

from subsvc.db import Refused, error_unstored, utcnow, write_batch
from subsvc.services import services

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R")
Out = TypeVar("Out")
D = TypeVar("D", bound="DataclassInstance")
T = TypeVar("T")
ERROR_CHARS = 255


def lease_free(table: Table, now: datetime | None = None) -> ColumnElement[bool]:
    """The run's lease is free: never taken, or run out (before ``now``)."""
    return or_(table.c.lease_until.is_(None), table.c.lease_until < (now or utcnow()))


def lease_take(table: Table, run_id: int, unfinished: Collection[str], now: datetime) -> Update:
    """The ``UPDATE`` that takes a run's lease: of its row while it is unfinished and its lease
    free (the values to set, and what to return, are the caller's)."""
    return update(table).where(table.c.id == run_id, table.c.status.in_(unfinished), lease_free(table, now))


async def resume_unleased(
    app: Starlette, table: Table, unfinished: Collection[str], job: str, key: str
) -> None:
    """Enqueue ``job`` (``key`` = the run's id) for every unfinished run whose lease is free."""
    orphans = select(table.c.id).where(table.c.status.in_(unfinished), lease_free(table)).order_by(table.c.id)
    async with services(app).db.session(read_only=True) as session:
        run_ids = list((await session.exec(orphans)).all())
    for run_id in run_ids:
        await services(app).jobs.enqueue(job, **{key: run_id})


@dataclass(frozen=True)
class Batches(Generic[R, Out]):
    """A leased run's steps: ``claim`` the next batch (``None``: the run is not ours to go on
    with), ``deliver`` it, ``record`` the outcomes, ``finish`` (``True``: nothing is left)."""

    claim: Callable[[], Awaitable[Sequence[R] | None]]
    deliver: Callable[[Sequence[R]], Awaitable[Sequence[Out]]]
    record: Callable[[Sequence[R], Sequence[Out]], Awaitable[None]]
    finish: Callable[[bool], Awaitable[None]]


async def send_batches(app: Starlette, run: Batches[R, Out]) -> None:
    """Claim, deliver and record batches until none is left (the run is finished) or the app
    stops (the lease is given back for the next process); a refused claim just ends."""
    while True:
        if services(app).jobs.stopping:
            await run.finish(False)
            return
        batch = await run.claim()
        if batch is None:
            return
        if not batch:
            await run.finish(True)
            return
        await run.record(batch, await run.deliver(batch))


async def each_limited(
    concurrency: int, items: Iterable[T], call: Callable[[T], Awaitable[Out]]
) -> list[Out]:
    """``call`` for every item, at most ``concurrency`` at a time; the results in order."""
    gate = asyncio.Semaphore(concurrency)

    async def one(item: T) -> Out:
        async with gate:
            return await call(item)

    return list(await asyncio.gather(*(one(item) for item in items)))


async def save_outcomes(
    write: Callable[[list[tuple[Any, D]]], Awaitable[object]],
    batch: Sequence[Any],
    outcomes: Sequence[D],
    *,
    run: str,
    what: str,
    logger: logging.Logger,
) -> list[Refused[tuple[Any, D]]]:
    """``write`` each recipient row (with its ``messenger_id``) and its outcome in one
    transaction (:func:`subsvc.db.write_batch`): outcomes refused together are written one by
    one, one refused alone without the messenger's words (an outcome's ``error``). The
    outcomes refused alone (``stand_in`` ``None``: not written at all)."""
    return await write_batch(
        write,
        zip(batch, outcomes, strict=True),
        stand_in=error_unstored("the messenger's answer", ERROR_CHARS),
        describe=lambda item: f"{run}: the outcome for chat {item[0].messenger_id}",
        what=what,
        logger=logger,
    )

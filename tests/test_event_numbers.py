"""An event's payload holding a number JSON cannot hold (NaN, an infinity) is refused at
``publish`` with a ValueError naming where it is: not stored as text (a float field would
become a string for every subscriber) and not left to fail the commit later (PostgreSQL's
JSON has no NaN), which would lose the change with it."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import BaseModel
from sqlmodel import select
from subsvc_probe import ProbeNote

from subsvc.events import OutboxEvent

MEASURED = "probe.measured"


class Measured(BaseModel):
    value: float
    points: list[float] = []
    extra: dict[str, Any] = {}


@pytest.fixture
def events(app):
    """The app's event bus, with an event type whose payload has numbers."""
    bus = app.state.events
    bus.catalogue[MEASURED] = Measured
    return bus


async def _published(db, events, payload) -> None:
    """A note and an event in one transaction, committed."""
    async with db.session() as session:
        session.add(ProbeNote(text="measured"))
        events.publish(session, MEASURED, payload)
        await session.commit()


async def _stored(db) -> tuple[list[str], list[dict[str, Any]]]:
    async with db.session() as session:
        notes = [note.text for note in (await session.exec(select(ProbeNote))).all()]
        payloads = [event.payload for event in (await session.exec(select(OutboxEvent))).all()]
    return notes, payloads


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        ({"value": math.nan}, "value"),
        ({"value": 1.0, "points": [0.5, -math.inf]}, "points.1"),
        (Measured(value=math.inf), "value"),
    ],
)
async def test_a_non_finite_number_is_refused_at_the_call(db, events, payload, where):
    with pytest.raises(ValueError, match=rf"event 'probe.measured': {where} is not a finite number"):
        await _published(db, events, payload)
    assert await _stored(db) == ([], [])  # the transaction never committed: nothing half-written


async def test_finite_numbers_are_published_and_stored(db, events):
    await _published(db, events, {"value": 1.5, "points": [0.0, -2.25], "extra": {"n": 3, "f": 1e300}})
    notes, payloads = await _stored(db)
    assert notes == ["measured"]
    assert payloads == [{"value": 1.5, "points": [0.0, -2.25], "extra": {"n": 3, "f": 1e300}}]


async def test_an_untyped_field_has_its_non_finite_numbers_written_as_null_by_pydantic(db, events):
    await _published(db, events, {"value": 2.0, "extra": {"nan": math.nan, "deep": [math.inf]}})
    _, payloads = await _stored(db)
    assert payloads == [{"value": 2.0, "points": [], "extra": {"nan": None, "deep": [None]}}]

"""Storable values and batches written apart (issue 16): a NUL character, NaN or an over-long
text is made storable before it is written, and a batch the database refuses is written row
by row, so one refused row costs only itself. On a table of the test's own, in the database
the tests run on (SQLite or PostgreSQL)."""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa

from subsvc.db import (
    Database,
    Refused,
    error_unstored,
    is_refusal,
    refusal_reason,
    storable,
    storable_row,
    unstored,
    write_batch,
)

METADATA = sa.MetaData()
PROBE = sa.Table(
    "storable_probe",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(8), nullable=False),
    sa.Column("number", sa.Integer),
    sa.Column("doc", sa.JSON),
)


@pytest.fixture
async def probe(db: Database) -> AsyncIterator[Database]:
    """The app's database with the table ``storable_probe`` (dropped after the test)."""
    async with db.engine.begin() as connection:
        await connection.run_sync(METADATA.drop_all)
        await connection.run_sync(METADATA.create_all)
    yield db
    async with db.engine.begin() as connection:
        await connection.run_sync(METADATA.drop_all)


class Writer:
    """Inserts rows into ``storable_probe`` in a transaction per call, and counts the calls."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.calls: list[int] = []

    async def __call__(self, rows: list[dict[str, Any]]) -> None:
        self.calls.append(len(rows))
        async with self.db.engine.begin() as connection:  # every row with every column
            await connection.execute(sa.insert(PROBE), [{"number": None, "doc": None, **row} for row in rows])

    async def names(self) -> list[str]:
        async with self.db.engine.connect() as connection:
            return list((await connection.execute(sa.select(PROBE.c.name).order_by(PROBE.c.id))).scalars())


def test_texts_and_json_values_are_made_storable():
    assert storable("a\x00b") == "a\ufffdb"
    assert storable("a\ud800b\udfff") == "a\ufffdb\ufffd"  # lone surrogates: no UTF-8 holds them
    assert storable("😀 ok") == "😀 ok"
    assert storable("a\x00bcdef", 3) == "a\ufffdb"
    assert storable("short", 10) == "short"
    assert storable(None) is None
    assert storable({"k\x00": ["v\x00", math.nan, math.inf, -math.inf, 1.5, 2, True, None]}) == {
        "k\ufffd": ["v\ufffd", "NaN", "Infinity", "-Infinity", 1.5, 2, True, None]
    }
    assert storable({1: (object,)}) == {"1": ["<class 'object'>"]}  # no form in JSON: its text
    assert unstored("the answer", "too long", 20) == "the answer could not"


@dataclass(frozen=True)
class Outcome:
    state: str
    error: str | None = None


def test_an_outcome_refused_alone_stands_in_with_a_note_for_its_error():
    stand_in = error_unstored("the answer", 30)
    assert stand_in(("row", Outcome("failed", "x\x00")), "too long") == (
        "row",
        Outcome("failed", "the answer could not be stored"),
    )


def test_a_row_is_made_storable_by_its_columns():
    row = {"name": "x\x00" * 10, "number": 5, "doc": {"q": math.nan}, "other": "y\x00"}
    assert storable_row(row, PROBE) == {
        "name": "x\ufffd" * 4,  # VARCHAR(8)
        "number": 5,
        "doc": {"q": "NaN"},
        "other": "y\x00",  # not a column: as given
    }


async def test_values_made_storable_are_stored_as_made(probe):
    writer = Writer(probe)
    row = storable_row({"name": "a\x00\ud800" * 3, "doc": {"k\x00": [math.nan, "v\x00"]}}, PROBE)
    assert await write_batch(writer, [row]) == []
    async with probe.engine.connect() as connection:
        stored = (await connection.execute(sa.select(PROBE.c.name, PROBE.c.doc))).one()
    assert stored.name == "a\ufffd\ufffda\ufffd\ufffda\ufffd"  # VARCHAR(8)
    assert stored.doc == {"k\ufffd": ["NaN", "v\ufffd"]}


async def test_a_batch_the_database_takes_is_one_write(probe):
    writer = Writer(probe)
    assert await write_batch(writer, [{"name": f"n{i}"} for i in range(5)]) == []
    assert writer.calls == [5]
    assert await writer.names() == [f"n{i}" for i in range(5)]


async def test_rows_the_database_refuses_cost_only_themselves(probe, caplog):
    writer = Writer(probe)
    nul = {"name": "nul\x00"}  # PostgreSQL refuses it, SQLite takes it
    rows = [
        {"name": "first"},
        {"name": None},  # NOT NULL: refused everywhere
        {"name": "middle"},
        {"name": "big", "number": 2**70},  # beyond any integer column
        nul,
        {"name": "odd\ud800"},  # a lone surrogate: refused everywhere
        {"name": "last"},
    ]
    with caplog.at_level(logging.WARNING, logger="subsvc.db"):
        refused = await write_batch(
            writer, rows, describe=lambda row: f"row {row['name']!r}", what="probe rows"
        )
    refused_nul = probe.dialect == "postgresql"
    assert [r.item for r in refused] == [rows[1], rows[3], *([nul] if refused_nul else []), rows[5]]
    assert all(r.stand_in is None and r.reason for r in refused)
    assert "name" in refused[0].reason.lower() and "\n" not in refused[0].reason
    assert await writer.names() == ["first", "middle", *([] if refused_nul else ["nul\x00"]), "last"]
    assert writer.calls == [7, 1, 1, 1, 1, 1, 1, 1]  # the batch once, then each row alone
    warning, *errors = [r.getMessage() for r in caplog.records if r.name == "subsvc.db"]
    assert warning.startswith("7 probe rows were refused together")
    assert len(errors) == len(refused)
    assert errors[0] == f"row None could not be written ({refused[0].reason}); not written"


async def test_a_refused_row_is_written_as_its_stand_in(probe, caplog):
    writer = Writer(probe)

    def without_number(row: dict[str, Any], reason: str) -> dict[str, Any] | None:
        return {**row, "number": None, "doc": {"note": reason}} if row["name"] != "hopeless" else None

    rows = [{"name": "good"}, {"name": "big", "number": 2**70}, {"name": "hopeless", "number": 2**70}]
    refused = await write_batch(writer, rows, stand_in=without_number, describe=lambda row: row["name"])
    assert [(r.item["name"], r.stand_in is not None) for r in refused] == [("big", True), ("hopeless", False)]
    big = refused[0]
    assert big == Refused(rows[1], big.reason, {"name": "big", "number": None, "doc": {"note": big.reason}})
    async with probe.engine.connect() as connection:
        stored = (
            await connection.execute(sa.select(PROBE.c.name, PROBE.c.number).order_by(PROBE.c.id))
        ).all()
    assert [tuple(row) for row in stored] == [("good", None), ("big", None)]
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert logged == [
        f"big could not be written ({big.reason}); written without what was refused",
        f"hopeless could not be written ({refused[1].reason}); not written",
    ]


async def test_a_single_refused_row_is_tried_once(probe):
    writer = Writer(probe)
    refused = await write_batch(writer, [{"name": None}])
    assert len(refused) == 1 and writer.calls == [1]
    assert await write_batch(writer, []) == [] and writer.calls == [1]


class LeaseLost(Exception):
    """An error of the caller's own: not a refusal."""


async def test_what_is_not_a_refusal_is_raised_and_rows_written_alone_stay(probe):
    writer = Writer(probe)

    async def write(rows: list[dict[str, Any]]) -> None:
        if any(row["name"] == "lost" for row in rows):
            raise LeaseLost
        if len(rows) == 1 and rows[0]["name"] == "gone":
            raise ConnectionResetError("the database is unreachable")
        await writer(rows)

    with pytest.raises(LeaseLost):
        await write_batch(write, [{"name": "lost"}, {"name": "b"}])
    assert writer.calls == [] and await writer.names() == []  # not even tried together
    with pytest.raises(ConnectionResetError):
        await write_batch(write, [{"name": "a"}, {"name": None}, {"name": "gone"}, {"name": "z"}])
    assert await writer.names() == ["a"]


async def test_refusals_are_told_from_an_unreachable_database(probe):
    async with probe.engine.connect() as connection:
        with pytest.raises(sa.exc.IntegrityError) as refused:
            await connection.execute(sa.insert(PROBE), [{"name": None}])
    assert is_refusal(refused.value)
    assert "\n" not in refusal_reason(refused.value) and len(refusal_reason(refused.value)) <= 300
    assert is_refusal(OverflowError("Python int too large to convert to SQLite INTEGER"))
    assert not is_refusal(ConnectionResetError())
    assert not is_refusal(sa.exc.OperationalError("SELECT 1", {}, OSError("connection lost")))
    assert not is_refusal(LeaseLost())

"""Run the pages plugin alone, and give tests a way to look at its rows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import pytest
from sqlmodel import SQLModel, col, select

from subsvc.db import Database

Rows = Callable[..., Awaitable[list[Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_pages.plugin"]


@pytest.fixture
def rows(db: Database) -> Rows:
    """``await rows(Model, language="en")``: the table's rows matching the filters, by id."""

    async def fetch(model: type[SQLModel], **filters: Any) -> list[Any]:
        query = select(model)
        for name, value in filters.items():
            query = query.where(getattr(model, name) == value)
        async with db.session() as session:
            return list((await session.exec(query.order_by(col(model.id)))).all())  # type: ignore[attr-defined]

    return fetch


def _utc_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    offset = parsed.utcoffset()
    assert offset is not None and offset.total_seconds() == 0, f"not UTC with an offset: {value}"
    return parsed


@pytest.fixture
def utc_time() -> Callable[[str], datetime]:
    """Parse a response's ISO 8601 timestamp, asserting it is timezone-aware UTC."""
    return _utc_time

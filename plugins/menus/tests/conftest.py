"""Run the menus plugin alone; give tests an administrator's and a member's cabinet client,
and a way to write click rows at chosen times."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import insert
from subsvc_menus.models import ButtonClick

from subsvc.db import Database


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["menus"]


AddClicks = Callable[[list[dict[str, Any]]], Awaitable[None]]


@pytest.fixture
def add_clicks(db: Database) -> AddClicks:
    """``await add_clicks([{"button_id": "x", "clicked_at": t, ...}, ...])``: one INSERT."""

    async def add(clicks: list[dict[str, Any]]) -> None:
        rows = [
            {"user_id": None, "callback_data": None, "button_type": None, "button_text": None, **c}
            for c in clicks
        ]
        async with db.session() as session:
            await session.exec(insert(ButtonClick.__table__), params=rows)  # type: ignore[attr-defined]
            await session.commit()

    return add

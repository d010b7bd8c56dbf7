"""Test fixtures of the tariffs plugin (a pytest plugin, entry point ``pytest11``): tariffs
written for tests as bare rows."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from subsvc.db import Database
from subsvc.testing import stored
from subsvc_tariffs.models import Tariff

MakeTariff = Callable[..., Awaitable[Tariff]]


@pytest.fixture
def make_tariff(db: Database) -> MakeTariff:
    """``await make_tariff(period_prices={"30": 30_000}, device_limit=1, ...)``: a committed
    tariff row, numbered (``Tariff N``, display order N), 30 and 90 days at 300 and 800 RUB,
    100 GB, unless ``fields`` say otherwise."""
    counter = itertools.count(1)

    async def make(**fields: Any) -> Tariff:
        number = next(counter)
        fields.setdefault("name", f"Tariff {number}")
        fields.setdefault("display_order", number)
        fields.setdefault("period_prices", {"30": 30_000, "90": 80_000})
        fields.setdefault("traffic_limit_gb", 100)
        return await stored(db, Tariff(**fields))

    return make

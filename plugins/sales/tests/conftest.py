"""Run sales with the plugins it needs and panel_sync (whose queue the purchases fill) against
the loopback fake panel. ``@pytest.mark.sales_env(NAME=value)`` sets more of the app's environment."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.testing import FAST_SYNC
from subsvc_tariffs.api import Tariff
from subsvc_tariffs.testing import MakeTariff

from subsvc.db import Database
from subsvc.testing import marked_env


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sales_env(**values): environment of the test's app")


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["sales", "panel_sync"]


@pytest.fixture
def subsvc_settings_overrides(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, fake_panel: FakePanel
) -> dict[str, Any]:
    values: dict[str, Any] = dict(FAST_SYNC)
    values.update(fake_panel.env(), PANEL_MAX_RETRIES="0")
    marked_env(request, monkeypatch, "sales_env", values)
    return {"DATABASE_POOL_SIZE": 30, "DATABASE_TIMEOUT": 60}


@pytest.fixture
def make_tariff(make_tariff: MakeTariff) -> MakeTariff:
    """The tariffs kit's ``make_tariff`` with the sales tests' prices (199 and 499 RUB), squad
    ``squad-a`` and 2 devices unless given."""

    async def make(**fields: Any) -> Tariff:
        fields.setdefault("period_prices", {"30": 19_900, "90": 49_900})
        fields.setdefault("allowed_squads", ["squad-a"])
        fields.setdefault("device_limit", 2)
        return await make_tariff(**fields)

    return make


@pytest.fixture
def buyer(make_user: Callable[..., Awaitable[Any]], cabinet: Callable[[int], Any]):
    """``async with buyer(balance_kopeks=50_000) as (user, http)``: a user and their cabinet client."""

    @contextlib.asynccontextmanager
    async def make(**fields: Any) -> AsyncIterator[tuple[Any, Any]]:
        user = await make_user(**fields)
        async with cabinet(user.id) as http:
            yield user, http

    return make


@pytest.fixture
def postgres(db: Database) -> bool:
    """Whether the tests run on PostgreSQL (real concurrency) rather than SQLite."""
    return db.engine.dialect.name == "postgresql"

"""Run sales with the plugins it needs and panel_sync (whose queue the purchases fill) against
the loopback fake panel. ``@pytest.mark.sales_env(NAME=value)`` sets more of the app's environment."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.testing import FAST_SYNC

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

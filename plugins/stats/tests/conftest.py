"""The stats plugin with the plugins whose tables it reads."""

from __future__ import annotations

import pytest

from subsvc.testing import set_env


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["stats"]


@pytest.fixture(autouse=True)
def no_stats_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compute on every request unless a test asks otherwise."""
    set_env(monkeypatch, {"STATS_CACHE_SECONDS": 0})

"""The stats plugin with the plugins whose tables it reads."""

from __future__ import annotations

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["stats"]


@pytest.fixture(autouse=True)
def no_stats_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compute on every request unless a test asks otherwise."""
    monkeypatch.setenv("STATS_CACHE_SECONDS", "0")

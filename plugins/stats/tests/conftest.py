"""The stats plugin with the plugins whose tables it reads."""

from __future__ import annotations

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return [
        "subsvc_promo_groups.plugin",
        "subsvc_users.plugin",
        "subsvc_billing.plugin",
        "subsvc_subscriptions.plugin",
        "subsvc_stats.plugin",
    ]


@pytest.fixture(autouse=True)
def no_stats_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compute on every request unless a test asks otherwise."""
    monkeypatch.setenv("STATS_CACHE_SECONDS", "0")

"""Run the panel plugin with the plugins it needs, pointed at the loopback fake panel (or at
none); subscriptions with limits (users, clients: the kits)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_rbac.testing import permission_holder  # noqa: F401 - fixture (tests with rbac)
from subsvc_subscriptions.testing import MakeSubscription

BASE_PLUGINS = ["panel"]
PANEL_SETTINGS = ("PANEL_API_URL", "PANEL_API_KEY", "PANEL_MAX_RETRIES", "PANEL_TIMEOUT_SECONDS")


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(BASE_PLUGINS)


@pytest.fixture
def panel_configured() -> bool:
    """Whether the app is pointed at the fake panel (a test module may say no)."""
    return True


@pytest.fixture
def subsvc_settings_overrides(
    fake_panel: FakePanel, monkeypatch: pytest.MonkeyPatch, panel_configured: bool
) -> dict[str, Any]:
    """The panel settings come from the environment: the fake's, or none."""
    for name in PANEL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    if panel_configured:
        for name, value in fake_panel.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("PANEL_TIMEOUT_SECONDS", "3")
    return {}


@pytest.fixture
def make_subscription(make_subscription: MakeSubscription) -> MakeSubscription:
    """The subscriptions kit's rows, with a 100 GB traffic limit and 3 devices unless given."""
    return functools.partial(make_subscription, traffic_limit_gb=100, device_limit=3)

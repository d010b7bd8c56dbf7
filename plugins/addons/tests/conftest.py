"""Run addons with panel_sync (its panel port) against the loopback fake panel, with quick
queue settings. ``@pytest.mark.addons_env(NAME=value)`` sets more of the test app's
environment; ``@pytest.mark.no_panel`` leaves the panel unconfigured."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.testing import FAST_SYNC
from subsvc_tariffs.api import Tariff

from subsvc.testing import marked_env, stored


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "addons_env(**values): environment of the test's app")
    config.addinivalue_line("markers", "no_panel: the app has no panel configured")


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["addons", "panel_sync"]


@pytest.fixture
def subsvc_settings_overrides(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, fake_panel: FakePanel
) -> dict[str, Any]:
    values = dict(FAST_SYNC)
    if request.node.get_closest_marker("no_panel"):
        monkeypatch.delenv("PANEL_API_URL", raising=False)
        monkeypatch.delenv("PANEL_API_KEY", raising=False)
    else:
        values.update(fake_panel.env(), PANEL_MAX_RETRIES="0")
    marked_env(request, monkeypatch, "addons_env", values)
    return {}


@dataclass
class Subscriber:
    """A user, one subscription of theirs, and (unless left out) its account in the fake panel."""

    user: Any
    subscription: Any
    account: dict[str, Any] | None


Subscribe = Callable[..., Awaitable[Subscriber]]


@pytest.fixture
def subscriber(make_user, make_subscription, fake_panel: FakePanel) -> Subscribe:
    """``await subscriber(account=True, user=None, **subscription columns)``: a subscription
    (of a new user, or of ``user``) and the panel account a push would have made for it."""

    async def make(squads: Any = (), *, account: bool = True, user: Any = None, **fields: Any) -> Subscriber:
        user = user or await make_user()
        fields.setdefault("device_limit", 3)
        subscription = await make_subscription(user, squads, **fields)
        made = None
        if account:
            name = f"user_{user.messenger_id}_{subscription.short_id}"
            made = fake_panel.add_user(name, telegramId=user.messenger_id, usedTrafficBytes=3 * 1024**3)
        return Subscriber(user, subscription, made)

    return make


@pytest.fixture
def make_tariff(db: Any) -> Callable[..., Awaitable[Any]]:
    """``await make_tariff(device_limit=1, device_price_kopeks=5000, ...)``: a committed tariff."""

    async def make(**fields: Any) -> Any:
        fields.setdefault("name", "Standard")
        fields.setdefault("period_prices", {"30": 30000})
        return await stored(db, Tariff(**fields))

    return make

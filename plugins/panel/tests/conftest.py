"""Run the panel plugin with the plugins it needs, pointed at the loopback fake panel; give
tests users, subscriptions and clients of an administrator and of an ordinary user."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.service import new_short_id
from subsvc_users.models import User

from subsvc.db import Database, utcnow

BASE_PLUGINS = ["panel"]
PANEL_SETTINGS = ("PANEL_API_URL", "PANEL_API_KEY", "PANEL_MAX_RETRIES", "PANEL_TIMEOUT_SECONDS")

MakeSubscription = Callable[..., Awaitable[Subscription]]


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
def make_subscription(db: Database) -> MakeSubscription:
    """``await make_subscription(user, ["squad"], status="active", days=30)``."""

    async def make(
        user: User,
        squads: Sequence[str] = (),
        *,
        status: str = "active",
        days: int = 30,
        traffic_limit_gb: int = 100,
        device_limit: int = 3,
        tariff_id: int | None = None,
    ) -> Subscription:
        now = utcnow()
        assert user.id is not None
        subscription = Subscription(
            user_id=user.id,
            status=status,
            start_date=now - timedelta(days=1),
            end_date=now + timedelta(days=days),
            traffic_limit_gb=traffic_limit_gb,
            device_limit=device_limit,
            connected_squads=list(squads),
            short_id=new_short_id(),
            tariff_id=tariff_id,
            created_at=now,
            updated_at=now,
        )
        async with db.session() as session:
            session.add(subscription)
            await session.commit()
            await session.refresh(subscription)
        return subscription

    return make

"""Run renewals with the plugins it requires; give tests tariffs, subscribers with a balance
and a subscription, and the renewals' environment (``@pytest.mark.renewals_env(NAME=value)``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from subsvc_tariffs.api import Tariff

from subsvc.testing import marked_env


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "renewals_env(**values): environment of the test's app")


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["renewals"]


@pytest.fixture
def subsvc_settings_overrides(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    marked_env(request, monkeypatch, "renewals_env", {})
    return {}


@dataclass
class Subscriber:
    """A user with a balance and one subscription of theirs."""

    user: Any
    subscription: Any


Subscribe = Callable[..., Awaitable[Subscriber]]


@pytest.fixture
def subscriber(make_user: Any, make_subscription: Any) -> Subscribe:
    """``await subscriber(balance=100_000, tariff=t, days=10, **subscription columns)``."""

    async def make(
        *, balance: int = 0, tariff: Tariff | None = None, user: Any = None, **fields: Any
    ) -> Subscriber:
        user = user or await make_user(balance_kopeks=balance)
        if tariff is not None:
            fields.setdefault("tariff_id", tariff.id)
            fields.setdefault("device_limit", tariff.device_limit)
        fields.setdefault("status", "active")
        return Subscriber(user, await make_subscription(user, **fields))

    return make

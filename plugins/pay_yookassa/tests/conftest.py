"""Run pay_yookassa (payments, billing and users come with it) pointed at a loopback fake
YooKassa, which its kit serves (``fake_yookassa``); ``@pytest.mark.yookassa_env(NAME=value)``
changes a setting of the test's app (an empty value unsets it)."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_pay_yookassa.testing import FakeYookassa, marked_fake_env


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "yookassa_env(**values): settings of the test's app")


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["pay_yookassa"]


@pytest.fixture
def payment_provider() -> str:
    return "yookassa"


@pytest.fixture
def subsvc_settings_overrides(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, fake_yookassa: FakeYookassa
) -> dict[str, Any]:
    """The fake's settings (and the test's marked ones) in the environment the app reads."""
    marked_fake_env(request, monkeypatch, "yookassa_env", fake_yookassa)
    return {}

"""Run pay_platega (with payments and what it requires) pointed at the loopback fake of
Platega (``@pytest.mark.platega_env(...)`` changes its settings); the payments kit's helpers
work on provider ``platega``."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_pay_platega.testing import FakePlatega, PlategaFake


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["pay_platega"]


@pytest.fixture
def subsvc_settings_overrides(platega_env: dict[str, str]) -> dict[str, Any]:
    return {}


@pytest.fixture
def payment_provider() -> str:
    return "platega"


@pytest.fixture
def provider_fake(fake_platega: FakePlatega) -> PlategaFake:
    return PlategaFake(fake_platega)

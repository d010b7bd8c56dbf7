"""Core tests run core's internal plugins plus the probe test plugin (tests/support)."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture
def subsvc_plugins() -> list[ModuleType | str] | None:
    return ["subsvc_probe"]

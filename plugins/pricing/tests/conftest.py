"""Run pricing with the plugins it needs (and the ones that grant personal discounts, where a
test asks for them)."""

from __future__ import annotations

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["pricing"]

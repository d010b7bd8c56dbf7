"""Run the support plugin alone."""

from __future__ import annotations

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["support"]

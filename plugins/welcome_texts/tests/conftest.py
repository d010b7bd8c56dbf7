"""Run the welcome_texts plugin alone."""

from __future__ import annotations

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["welcome_texts"]

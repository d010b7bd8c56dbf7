"""Run the pages plugin alone, and give tests a way to look at its rows."""

from __future__ import annotations

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["pages"]

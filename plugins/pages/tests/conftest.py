"""Run the pages plugin alone, and give tests a way to look at its rows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_pages.plugin"]


def _utc_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    offset = parsed.utcoffset()
    assert offset is not None and offset.total_seconds() == 0, f"not UTC with an offset: {value}"
    return parsed


@pytest.fixture
def utc_time() -> Callable[[str], datetime]:
    """Parse a response's ISO 8601 timestamp, asserting it is timezone-aware UTC."""
    return _utc_time

"""Run the cabinet with the plugins it needs; its users are made through the Web API (the
users' kit); cabinet clients and loopback servers come from core's kit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

PLUGINS = ["cabinet"]
MakeUser = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return PLUGINS


@pytest.fixture
def make_user(api_user: MakeUser) -> MakeUser:
    """``await make_user()``: a user created through `POST /users`; its record."""
    return api_user

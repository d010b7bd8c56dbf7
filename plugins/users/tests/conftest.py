"""Run the users plugin (its requirements come with it); users made through the Web API."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from subsvc_users.testing import post_user

MakeUser = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["users"]


@pytest.fixture
def make_user(client: httpx2.AsyncClient) -> MakeUser:
    """``await make_user(messenger_id=1, first_name="Ann")``: ``POST /users`` (201); its record."""
    return functools.partial(post_user, client)

"""Run promo groups with the users plugin (whose users are the groups' members); groups and
users made through the Web API."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from subsvc_users.testing import post_user

from subsvc.testing import created

Make = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["promo_groups", "users"]


@pytest.fixture
def make_group(client: httpx2.AsyncClient) -> Make:
    """``await make_group(name="VIP", server_discount_percent=10)``: POST /promo-groups (201)."""
    return lambda **fields: created(client, "/promo-groups", fields)


@pytest.fixture
def make_user(client: httpx2.AsyncClient) -> Make:
    """``await make_user(promo_group_id=2)``: POST /users (201)."""
    return functools.partial(post_user, client)

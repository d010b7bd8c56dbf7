"""``admin`` and ``member`` clients whose users exist: core's clients, after the users kit's
``admin_user`` and ``member_user`` (users 1 and 2) are made. Import both into a conftest::

    from subsvc_users.testing_clients import admin_with_users, member_with_users  # noqa: F401 - fixtures
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest


@pytest.fixture(name="admin")
def admin_with_users(admin: httpx2.AsyncClient, member_user: Any) -> httpx2.AsyncClient:
    """The administrator's client (``admin_token``; users 1 and 2 exist)."""
    return admin


@pytest.fixture(name="member")
def member_with_users(member: httpx2.AsyncClient, member_user: Any) -> httpx2.AsyncClient:
    """The ordinary user's client (``user_token``: user 2; no admin, no role)."""
    return member

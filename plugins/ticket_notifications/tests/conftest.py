"""Run ticket_notifications with the plugins it needs (users, support, tickets) and rbac, and
give tests tickets made through the cabinet, the configuration switches and the rows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_rbac.testing import permission_holder  # noqa: F401 - fixture (tests with rbac)
from subsvc_support.api import update_support_config

from subsvc.db import Database
from subsvc.testing import created

USER_NOTIFICATIONS = "/cabinet/tickets/notifications"
ADMIN_NOTIFICATIONS = "/cabinet/admin/tickets/notifications"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["ticket_notifications", "rbac"]


@pytest.fixture
def configure(app: Starlette, db: Database) -> Callable[..., Awaitable[None]]:
    """``await configure(cabinet_admin_notifications_enabled=False, ...)``: support's
    configuration changed through its public API."""

    async def change(**values: Any) -> None:
        async with db.session() as session:
            await update_support_config(session, app, **values)
            await session.commit()

    return change


@pytest.fixture
def open_ticket(member: httpx2.AsyncClient) -> Callable[..., Awaitable[dict[str, Any]]]:
    """``await open_ticket(title=..., message=...)``: a ticket of user 2 made through the cabinet."""

    async def make(
        title: str = "VPN does not connect", message: str = "It stopped today", **body: Any
    ) -> dict[str, Any]:
        return await created(member, "/cabinet/tickets", {"title": title, "message": message, **body}, 200)

    return make


async def admin_reply(admin: httpx2.AsyncClient, ticket_id: int, message: str) -> dict[str, Any]:
    return await created(admin, f"/cabinet/admin/tickets/{ticket_id}/reply", {"message": message}, 200)


async def user_message(member: httpx2.AsyncClient, ticket_id: int, message: str) -> dict[str, Any]:
    return await created(member, f"/cabinet/tickets/{ticket_id}/messages", {"message": message}, 200)


async def listed(http: httpx2.AsyncClient, path: str, **params: Any) -> dict[str, Any]:
    response = await http.get(path, params=params)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer

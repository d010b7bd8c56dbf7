"""Run rbac with the plugins it needs; users, role holders' tokens and the audit rows for tests
(``fresh_audit_log``, autouse, comes from :mod:`subsvc_rbac.testing`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_rbac.models import AuditLogEntry
from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture
from subsvc_users.models import User

from subsvc.testing import Rows, bearer_client

IDENTITY_FIELDS = ("email", "email_verified", "email_verification_source")
MakeUser = Callable[..., Awaitable[User]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["rbac"]


@pytest.fixture
def token_for(app: Starlette) -> Callable[[User], str]:
    """A cabinet access JWT of a user (not an administrator unless the settings name them)."""

    def issue(user: User) -> str:
        token: str = app.state.jwt.access_token(user.id, messenger_id=user.messenger_id)
        return token

    return issue


@pytest.fixture
def as_user(app: Starlette) -> Callable[[str], httpx2.AsyncClient]:
    """``async with as_user(token) as http``: a client sending that bearer token."""

    def build(token: str, client_ip: str = "127.0.0.1") -> httpx2.AsyncClient:
        return bearer_client(app, token, client_ip)

    return build


Holder = Callable[..., Awaitable[tuple[User, httpx2.AsyncClient]]]


@pytest.fixture
async def holder(app: Starlette, admin: httpx2.AsyncClient, make_user: MakeUser) -> AsyncIterator[Holder]:
    """``user, http = await holder(level=50, permissions=[...])``: a user holding a new role
    (made and assigned by the administrator through the API) and a client of theirs."""
    clients: list[httpx2.AsyncClient] = []
    counter = iter(range(1, 1000))

    async def make(level: int, permissions: list[str], client_ip: str = "127.0.0.1", **role: Any) -> Any:
        number = next(counter)
        user = await make_user(first_name=f"Holder {number}")
        http = await role_holder(
            app,
            admin,
            user.id,
            permissions,
            name=f"role-{number}",
            level=level,
            messenger_id=user.messenger_id,
            client_ip=client_ip,
            **role,
        )
        clients.append(http)
        return user, http

    yield make
    for http in clients:
        if not http.is_closed:
            await http.aclose()


@pytest.fixture
def audit_rows(app: Starlette, rows: Rows) -> Callable[..., Awaitable[list[AuditLogEntry]]]:
    """The audit rows matching the filters, after the queue is written."""

    async def read(**filters: Any) -> list[AuditLogEntry]:
        await app.state.rbac.audit.flush()
        return list(await rows(AuditLogEntry, **filters))

    return read

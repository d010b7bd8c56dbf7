"""Every operation of every installed plugin at its gate, generated from the declarations
(``Endpoint.area``, ``.public``, ``.permission``), on one app with every plugin:

- without credentials: 401 (Web API: no ``X-API-Key``; cabinet areas: no JWT);
- cabinet admin, as an ordinary user: 403;
- cabinet admin with a permission, as a user holding a role with exactly that permission
  (the rbac plugin deciding): past the gate, whatever the operation then answers.

Path parameters are filled from their types (an integer 999999, anything else "x"); a body is
``{}``. A plugin's own tests check what its operations do beyond the gate, and that they carry
the reference's permission names.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.app import create_app
from subsvc.plugins import load
from subsvc.testing import (
    ADMIN_MESSENGER_ID,
    USER_MESSENGER_ID,
    bearer_client,
    ensure_migrated,
    running,
    settings_for_tests,
)

MANAGER = load()
OPERATIONS: list[tuple[str, Endpoint]] = [
    (info.name, endpoint)
    for info, routes in MANAGER.each("register_routes")
    for endpoint in routes
    if not endpoint.public
]
RBAC = any(info.name == "rbac" for info in MANAGER.enabled)
# Defects found beyond the gate, to fix in the plugin (then the test passes and must leave this list).
KNOWN_DEFECTS: dict[str, str] = {}
# The gate's own refusals (core's check, or the rbac plugin's); a handler may answer 403 too.
GATE_REFUSALS = ("Insufficient permissions", "Admin access required", "Permission denied")


def _id(operation: tuple[str, Endpoint]) -> str:
    plugin, endpoint = operation
    return f"{plugin}:{endpoint.method} {endpoint.path}"


def _of(area: str, *, with_permission: bool = False) -> list[Any]:
    return [
        pytest.param(op, id=_id(op), marks=_known(op) if with_permission else ())
        for op in OPERATIONS
        if op[1].area == area and (op[1].permission is not None or not with_permission)
    ]


def _known(operation: tuple[str, Endpoint]) -> list[pytest.MarkDecorator]:
    reason = KNOWN_DEFECTS.get(_id(operation))
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _url(endpoint: Endpoint) -> str:
    """The path with its parameters filled from their types: an integer 999999, else "x"."""
    types = {i.wire_name: i.annotation for i in endpoint.inputs if i.location == "path"}
    return re.sub(
        r"{([^}:]+)(?::[^}]*)?}", lambda m: "999999" if types.get(m[1]) is int else "x", endpoint.path
    )


async def _call(http: httpx2.AsyncClient, endpoint: Endpoint) -> httpx2.Response:
    body = {} if endpoint.body is not None else None
    return await http.request(endpoint.method, _url(endpoint), json=body)


@pytest.fixture(scope="module")
async def app(subsvc_database_url: str) -> AsyncIterator[Starlette]:
    """One app with every installed plugin for the whole module (its rows emptied at the end):
    the gate does not depend on the rows, and an app per operation would cost minutes."""
    settings = settings_for_tests(subsvc_database_url)
    application = create_app(settings, plugins=None)
    await ensure_migrated(settings.DATABASE_URL, application.state.migration_dirs)
    async with running(application):
        yield application


async def _insert_user(app: Starlette, user_id: int, messenger_id: int) -> None:
    """A bare ``users`` row (the users plugin's model; the cabinet reads the caller's row)."""
    from subsvc_users.models import User

    async with app.state.db.session() as session:
        session.add(User(id=user_id, messenger_id=messenger_id))
        await session.commit()


@pytest.fixture(scope="module", autouse=True)
async def cabinet_users(app: Starlette) -> None:
    """The rows of ``admin_token``'s and ``user_token``'s users (ids 1 and 2)."""
    await _insert_user(app, 1, ADMIN_MESSENGER_ID)
    await _insert_user(app, 2, USER_MESSENGER_ID)


@pytest.fixture(scope="module")
def holders() -> dict[str, int]:
    """The user holding a role with exactly one permission, by permission (made once)."""
    return {}


async def _holder(
    app: Starlette, admin: httpx2.AsyncClient, holders: dict[str, int], permission: str
) -> httpx2.AsyncClient:
    """A client of a user whose only role holds ``permission`` (user and role made once)."""
    from subsvc_rbac.testing import grant_role

    if permission not in holders:
        user_id = holders[permission] = 500_000 + len(holders)
        await _insert_user(app, user_id, 880_000_000 + user_id)
        await grant_role(admin, user_id, [permission], name=f"Holder of {permission}")
    user_id = holders[permission]
    return bearer_client(app, app.state.jwt.access_token(user_id, messenger_id=880_000_000 + user_id))


def test_the_matrix_covers_every_area():
    areas = {endpoint.area for _, endpoint in OPERATIONS}
    assert areas == {"web", "cabinet", "cabinet-admin"}
    assert len(_of("cabinet-admin", with_permission=True)) > 100


@pytest.mark.parametrize("operation", _of("web"))
async def test_the_web_api_without_a_key_is_401(anon_client: httpx2.AsyncClient, operation: Any):
    response = await _call(anon_client, operation[1])
    assert response.status_code == 401, response.text


@pytest.mark.parametrize("operation", _of("cabinet") + _of("cabinet-admin"))
async def test_the_cabinet_without_a_token_is_401(anon_client: httpx2.AsyncClient, operation: Any):
    response = await _call(anon_client, operation[1])
    assert (response.status_code, response.json()) == (401, {"detail": "Authentication required"})


@pytest.mark.parametrize("operation", _of("cabinet-admin"))
async def test_the_cabinet_admin_refuses_an_ordinary_user(member: httpx2.AsyncClient, operation: Any):
    response = await _call(member, operation[1])
    assert response.status_code == 403, response.text
    assert response.json()["detail"].startswith(GATE_REFUSALS)


@pytest.mark.skipif(not RBAC, reason="the rbac plugin is not installed: no roles to hold")
@pytest.mark.parametrize("operation", _of("cabinet-admin", with_permission=True))
async def test_a_role_with_exactly_the_permission_passes_the_gate(
    app: Starlette,
    admin: httpx2.AsyncClient,
    holders: dict[str, int],
    operation: Any,
):
    endpoint: Endpoint = operation[1]
    assert endpoint.permission is not None
    async with await _holder(app, admin, holders, endpoint.permission) as http:
        response = await _call(http, endpoint)
    assert response.status_code != 401, response.text
    assert response.status_code != 403 or not response.json()["detail"].startswith(GATE_REFUSALS)

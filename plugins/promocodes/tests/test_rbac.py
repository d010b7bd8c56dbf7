"""With the rbac plugin deciding permissions: a role's `promocodes:*` / `promo_groups:*`
grants open exactly the operations they name; anything else is the gate's 403."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_promocodes.models import PromoCode
from subsvc_rbac.testing import grant_role

ADMIN = "/cabinet/admin/promocodes"
GROUPS = "/cabinet/admin/promo-groups"
BODY = {"code": "ROLE", "type": "balance", "balance_bonus_kopeks": 100}

Holder = Callable[[list[str]], Awaitable[httpx2.AsyncClient]]


@pytest.fixture
def subsvc_plugins(subsvc_plugins: list[Any]) -> list[Any]:
    return [*subsvc_plugins, "subsvc_rbac.plugin"]


@pytest.fixture
async def holder(app: Starlette, admin: httpx2.AsyncClient, make_user, cabinet) -> AsyncIterator[Holder]:
    """``http = await holder(["promocodes:read"])``: a client of a user holding a new role with
    those permissions (made and assigned by the administrator through the API)."""
    clients: list[httpx2.AsyncClient] = []
    numbers = iter(range(1, 1000))

    async def make(permissions: list[str]) -> httpx2.AsyncClient:
        user = await make_user()
        await grant_role(admin, user["id"], permissions, name=f"r{next(numbers)}")
        http = cabinet(user["id"])
        clients.append(http)
        return http

    yield make
    for http in clients:
        await http.aclose()


async def test_a_reader_reads_but_does_not_write(holder, make_code, rows):
    code = await make_code(code="SEEN")
    reader = await holder(["promocodes:read"])
    assert (await reader.get(ADMIN)).status_code == 200
    assert (await reader.get(f"{ADMIN}/{code['id']}")).status_code == 200
    for method, path, body in (
        ("POST", ADMIN, BODY),
        ("PATCH", f"{ADMIN}/{code['id']}", {"is_active": False}),
        ("DELETE", f"{ADMIN}/{code['id']}", None),
    ):
        response = await reader.request(method, path, json=body)
        assert response.status_code == 403
        assert response.json()["detail"].startswith("Permission denied: ")
    (row,) = await rows(PromoCode)
    assert (row.code, row.is_active) == ("SEEN", True)


async def test_a_marketer_role_manages_codes_and_groups(holder, rows):
    marketer = await holder(["promocodes:*", "promo_groups:*"])
    created = await marketer.post(ADMIN, json=BODY)
    assert created.status_code == 201
    assert (await marketer.patch(f"{ADMIN}/{created.json()['id']}", json={"max_uses": 3})).status_code == 200
    group = await marketer.post(GROUPS, json={"name": "Marketing"})
    assert group.status_code == 201
    names = [g["name"] for g in (await marketer.get(GROUPS)).json()["items"]]
    assert sorted(names) == ["Marketing", "Базовый юзер"]  # the default group of the users made
    (row,) = await rows(PromoCode)
    assert row.max_uses == 3


async def test_a_group_reader_cannot_touch_codes(holder):
    groups_only = await holder(["promo_groups:read"])
    assert (await groups_only.get(GROUPS)).status_code == 200
    assert (await groups_only.post(GROUPS, json={"name": "X"})).status_code == 403
    assert (await groups_only.get(ADMIN)).status_code == 403

"""With the rbac plugin deciding: a role's `promo_offers:*` permissions open exactly their
operations (read, edit, send)."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_rbac.testing import fresh_audit_log, role_holder  # noqa: F401 - autouse fixture

ADMIN = "/cabinet/admin/promo-offers"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["rbac", "promo_offers"]


async def test_a_reader_reads_but_neither_edits_nor_sends(app, admin, member_user):
    async with await role_holder(app, admin, member_user.id, ["promo_offers:read"]) as reader:
        assert (await reader.get(ADMIN)).status_code == 200
        templates = (await reader.get(f"{ADMIN}/templates")).json()["items"]
        response = await reader.patch(f"{ADMIN}/templates/{templates[0]['id']}", json={"name": "x"})
        assert response.status_code == 403
        assert response.json()["detail"].startswith("Permission denied")
        body = {"notification_type": "n", "valid_hours": 1, "user_id": member_user.id}
        assert (await reader.post(f"{ADMIN}/broadcast", json=body)).status_code == 403


async def test_every_promo_offers_permission_opens_everything(app, admin, member_user):
    async with await role_holder(app, admin, member_user.id, ["promo_offers:*"]) as marketer:
        body = {"notification_type": "n", "valid_hours": 1, "user_id": member_user.id}
        assert (await marketer.post(f"{ADMIN}/broadcast", json=body)).status_code == 201
        templates = (await marketer.get(f"{ADMIN}/templates")).json()["items"]
        assert (
            await marketer.patch(f"{ADMIN}/templates/{templates[0]['id']}", json={"name": "x"})
        ).status_code == 200

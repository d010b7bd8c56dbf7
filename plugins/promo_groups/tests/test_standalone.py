"""The promo_groups plugin without the users plugin: no members to count or move."""

from __future__ import annotations

import pytest
from subsvc_promo_groups.models import PromoGroup


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["promo_groups"]


async def test_groups_work_without_users(client, rows):
    assert (await client.post("/users", json={})).status_code == 404
    base = (await client.post("/promo-groups", json={"name": "base"})).json()
    vip = (await client.post("/promo-groups", json={"name": "vip"})).json()
    listing = (await client.get("/promo-groups")).json()
    assert [g["members_count"] for g in listing["items"]] == [0, 0]
    assert (await client.delete(f"/promo-groups/{vip['id']}")).status_code == 204
    assert [g.id for g in await rows(PromoGroup)] == [base["id"]]

"""Concurrent requests against PostgreSQL: there is always exactly one default group."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_promo_groups.models import PromoGroup
from subsvc_users.models import User


@pytest.fixture(autouse=True)
def _postgresql_only(db):
    if db.dialect != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite runs one writer at a time, so these races cannot happen there")


async def test_concurrent_first_users_share_one_default_group(client, rows):
    responses = await asyncio.gather(*(client.post("/users", json={}) for _ in range(8)))
    assert [r.status_code for r in responses] == [201] * 8
    (group,) = await rows(PromoGroup)
    assert (group.name, group.is_default) == ("Базовый юзер", True)
    assert {r.json()["promo_group"]["id"] for r in responses} == {group.id}
    assert {u.promo_group_id for u in await rows(User)} == {group.id}


async def test_concurrent_default_switches_leave_one_default(client, rows):
    ids = []
    for i in range(6):
        r = await client.post("/promo-groups", json={"name": f"g{i}"})
        ids.append(r.json()["id"])
    responses = await asyncio.gather(
        *(client.patch(f"/promo-groups/{group_id}", json={"is_default": True}) for group_id in ids)
    )
    assert [r.status_code for r in responses] == [200] * 6
    assert len(await rows(PromoGroup, is_default=True)) == 1


async def test_concurrent_first_groups_make_one_default(client, rows):
    creations = (client.post("/promo-groups", json={"name": f"g{i}"}) for i in range(6))
    responses = await asyncio.gather(*creations)
    assert [r.status_code for r in responses] == [201] * 6
    assert sum(r.json()["is_default"] for r in responses) == 1
    assert len(await rows(PromoGroup, is_default=True)) == 1


async def test_concurrent_duplicate_names_are_400_not_500(client, rows):
    responses = await asyncio.gather(*(client.post("/promo-groups", json={"name": "same"}) for _ in range(6)))
    assert sorted(r.status_code for r in responses) == [201] + [400] * 5
    assert len(await rows(PromoGroup)) == 1


async def test_a_name_taken_between_check_and_insert_is_a_duplicate(db, rows):
    """Two transactions both pass the name check; the second one's insert loses the race."""
    from subsvc_promo_groups import service
    from subsvc_promo_groups.schemas import PromoGroupCreateRequest

    async with db.session() as first, db.session() as second:
        await service.create_group(first, PromoGroupCreateRequest(name="same"))
        assert await service.find_group(second, 1) is None  # not visible yet: the check passes
        racing = asyncio.create_task(service.create_group(second, PromoGroupCreateRequest(name="same")))
        await asyncio.sleep(0.2)
        assert not racing.done()  # waiting for the first transaction
        await first.commit()
        with pytest.raises(service.DuplicateGroupName):
            await racing
    assert [g.name for g in await rows(PromoGroup)] == ["same"]

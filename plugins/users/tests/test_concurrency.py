"""Concurrent requests against PostgreSQL: a duplicate messenger id is a 400, never a 500."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_users import service
from subsvc_users.models import User
from subsvc_users.schemas import UserCreateRequest

from subsvc.events import OutboxEvent


@pytest.fixture(autouse=True)
def _postgresql_only(db):
    if db.dialect != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite runs one writer at a time, so these races cannot happen there")


async def test_concurrent_creations_with_one_messenger_id(client, rows):
    responses = await asyncio.gather(*(client.post("/users", json={"messenger_id": 55}) for _ in range(8)))
    assert sorted(r.status_code for r in responses) == [201] + [400] * 7
    assert {r.json()["detail"] for r in responses if r.status_code == 400} == {
        "User with this messenger_id already exists"
    }
    assert len(await rows(User)) == 1
    assert len(await rows(OutboxEvent)) == 1


async def test_concurrent_creations_get_distinct_codes(client, rows):
    responses = await asyncio.gather(*(client.post("/users", json={"messenger_id": i}) for i in range(1, 21)))
    assert [r.status_code for r in responses] == [201] * 20
    assert len({u.referral_code for u in await rows(User)}) == 20
    assert (await client.get("/users")).json()["total"] == 20


async def test_a_messenger_id_taken_between_check_and_insert(app, db, client, rows):
    """Both transactions pass the check; the second insert waits for the first, then loses."""
    await client.post("/promo-groups", json={"name": "base"})
    async with db.session() as first, db.session() as second:
        await service.create_user(app, first, UserCreateRequest(messenger_id=66))
        racing = asyncio.create_task(service.create_user(app, second, UserCreateRequest(messenger_id=66)))
        await asyncio.sleep(0.2)
        assert not racing.done()  # the unique index makes it wait for the first transaction
        await first.commit()
        with pytest.raises(service.UserRuleError, match="User with this messenger_id already exists"):
            await racing
    assert [u.messenger_id for u in await rows(User)] == [66]

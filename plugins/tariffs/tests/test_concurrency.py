"""Concurrent changes on SQLite and PostgreSQL: one trial tariff whatever the races, toggles
and updates never lost, and a delete never removes a tariff a new subscription is taking."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from subsvc_subscriptions.models import Subscription
from subsvc_tariffs.models import Tariff
from subsvc_tariffs.service import lock_for_use

from subsvc.db import utcnow

BASE = "/cabinet/admin/tariffs"


async def test_racing_trial_flags_leave_exactly_one(admin, make_tariff, rows):
    tariffs = [await make_tariff() for _ in range(8)]
    responses = await asyncio.gather(*(admin.post(f"{BASE}/{t['id']}/trial") for t in tariffs))
    assert [r.status_code for r in responses] == [200] * 8
    assert all(r.json()["is_trial_available"] for r in responses)
    assert sum(row.is_trial_available for row in await rows(Tariff)) == 1


async def test_racing_toggles_of_one_tariff_are_all_counted(admin, make_tariff, rows):
    tariff = await make_tariff()
    responses = await asyncio.gather(*(admin.post(f"{BASE}/{tariff['id']}/toggle") for _ in range(6)))
    assert [r.status_code for r in responses] == [200] * 6
    assert sorted(r.json()["is_active"] for r in responses) == [False] * 3 + [True] * 3
    (row,) = await rows(Tariff)
    assert row.is_active is True  # six flips


async def test_racing_updates_of_different_fields_all_stick(admin, make_tariff):
    tariff = await make_tariff()
    changes = [
        {"traffic_limit_gb": 11},
        {"device_limit": 4},
        {"tier_level": 3},
        {"min_days": 2},
        {"description": "d"},
    ]
    responses = await asyncio.gather(*(admin.put(f"{BASE}/{tariff['id']}", json=c) for c in changes))
    assert [r.status_code for r in responses] == [200] * len(changes)
    body = (await admin.get(f"{BASE}/{tariff['id']}")).json()
    assert {name: body[name] for c in changes for name in c} == {k: v for c in changes for k, v in c.items()}


async def test_a_delete_waits_for_a_subscription_taking_the_tariff(admin, make_tariff, make_user, db, rows):
    tariff = await make_tariff()
    user = await make_user()
    async with db.session() as session:
        assert await lock_for_use(session, tariff["id"]) is not None
        deleting = asyncio.create_task(admin.delete(f"{BASE}/{tariff['id']}"))
        await asyncio.sleep(0.3)  # the delete is waiting for the tariff
        assert not deleting.done()
        now = utcnow()
        session.add(
            Subscription(
                user_id=user.id,
                tariff_id=tariff["id"],
                end_date=now + timedelta(days=30),
                short_id="race0001",
            )
        )
        await session.commit()
    response = await deleting
    assert response.status_code == 409
    assert [row.id for row in await rows(Tariff)] == [tariff["id"]]


async def test_racing_orders_end_in_one_of_them(admin, make_tariff):
    ids = [(await make_tariff())["id"] for _ in range(5)]
    orders = [ids, list(reversed(ids)), ids[2:] + ids[:2]]
    responses = await asyncio.gather(*(admin.put(f"{BASE}/order", json={"tariff_ids": o}) for o in orders))
    assert [r.status_code for r in responses] == [200] * 3
    listed = (await admin.get(BASE)).json()["tariffs"]
    assert [t["id"] for t in listed] in orders
    assert [t["display_order"] for t in listed] == [0, 1, 2, 3, 4]

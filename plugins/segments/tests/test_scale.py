"""A segment of 100,000 users is walked in bounded pages, each one indexed query."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from subsvc_segments.catalogue import SUBSCRIPTIONS, USERS
from subsvc_segments.recipients import count_recipients, iter_recipients, resolve

from subsvc.db import utcnow
from subsvc.testing import recorded_statements

USERS_COUNT = 100_000
PAGE = 5_000


async def test_a_large_segment_is_read_page_by_page(app, db):
    now = utcnow()
    users = [
        {
            "messenger_id": 600_000_000 + i,
            "status": "active",
            "language": "ru",
            "balance_kopeks": 0,
            "has_had_paid_subscription": False,
            "has_made_first_topup": False,
            "auth_type": "messenger",
            "email_verified": False,
            "created_at": now,
            "updated_at": now,
            "messenger_blocked_at": now if i % 100 == 0 else None,
        }
        for i in range(USERS_COUNT)
    ]
    async with db.session() as session:
        await session.exec(sa.insert(USERS), params=users)
        first = (await session.exec(sa.select(sa.func.min(USERS.c.id)))).one()[0]
        # every third user has a live paid subscription
        subscriptions = [
            {
                "user_id": first + i,
                "status": "active",
                "is_trial": False,
                "start_date": now,
                "end_date": now + timedelta(days=30),
                "traffic_limit_gb": 0,
                "traffic_used_gb": 1.0,
                "purchased_traffic_gb": 0,
                "device_limit": 1,
                "connected_squads": [],
                "autopay_enabled": False,
                "short_id": f"x{i:07d}",
                "panel_sync_state": "synced",
                "created_at": now,
                "updated_at": now,
            }
            for i in range(0, USERS_COUNT, 3)
        ]
        await session.exec(sa.insert(SUBSCRIPTIONS), params=subscriptions)
        await session.commit()
    if db.dialect == "postgresql":  # what autovacuum does after a bulk load: plans need statistics
        async with db.session() as session:
            await session.exec(sa.text("ANALYZE users"))
            await session.exec(sa.text("ANALYZE subscriptions"))
            await session.commit()

    no_subscription = resolve(app, "no")
    assert no_subscription is not None
    expected = [first + i for i in range(USERS_COUNT) if i % 3 != 0 and i % 100 != 0]

    seen: list[int] = []
    with recorded_statements(db) as statements:
        async for page in iter_recipients(app, no_subscription, reachable=True, page_size=PAGE):
            assert 0 < len(page) <= PAGE
            seen.extend(r.user_id for r in page)

    assert seen == expected
    assert len(statements) == -(-len(expected) // PAGE)  # one query a page, nothing else
    assert all("LIMIT" in statement for statement in statements)
    assert await count_recipients(app, no_subscription, reachable=True) == len(expected)

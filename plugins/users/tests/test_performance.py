"""On PostgreSQL, with a large table, the list and the search use the indexes (plans checked
with EXPLAIN on 50,000 seeded users) and answer right. Speed itself is measured in bench/."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from subsvc_users import service

from subsvc.db import Database

SIZE = 50_000
CHUNK = 5_000  # rows per INSERT: a loaded machine still seeds each within seconds
SEED = """
INSERT INTO users (messenger_id, username, first_name, last_name, status, language, balance_kopeks,
                   has_had_paid_subscription, has_made_first_topup, referral_code, promo_group_id,
                   created_at, updated_at)
SELECT 7000000000 + g, 'user_' || md5(g::text), 'Name' || (g % 5000), 'Surname' || md5((g * 7)::text),
       CASE WHEN g % 10 = 0 THEN 'blocked' ELSE 'active' END, 'ru', 0, false, false,
       'ref' || substr(md5((g * 3)::text), 1, 16), :group_id,
       now() - make_interval(secs => g), now() - make_interval(secs => g)
FROM generate_series(CAST(:first AS integer), CAST(:last AS integer)) AS g
"""


@pytest.fixture
async def big_table(db: Database, client) -> str:
    if db.dialect != "postgresql":
        pytest.skip("trigram indexes and these plans are PostgreSQL's")
    group = (await client.post("/promo-groups", json={"name": "base"})).json()["id"]
    async with db.engine.begin() as connection:
        for first in range(1, SIZE + 1, CHUNK):  # each statement well within command_timeout
            bounds = {"first": first, "last": min(first + CHUNK - 1, SIZE)}
            await connection.execute(text(SEED), {"group_id": group, **bounds})
        username = (
            await connection.execute(text("SELECT username FROM users WHERE messenger_id = 7000012345"))
        ).scalar_one()
    async with db.engine.connect() as connection:
        await (await connection.execution_options(isolation_level="AUTOCOMMIT")).execute(
            text("VACUUM ANALYZE users")
        )
    return username


async def explain(db: Database, statement) -> str:
    async with db.engine.connect() as connection:
        sql = str(statement.compile(dialect=connection.dialect, compile_kwargs={"literal_binds": True}))
        return "\n".join((await connection.execute(text("EXPLAIN " + sql))).scalars().all())


async def test_plans_and_requests_on_a_large_table(db, client, big_table):
    """One seeded table for every check (seeding costs seconds)."""
    # the newest-first page reads an index backwards: no scan of the table, no sort
    plan = await explain(db, service.page_query(service.filters(), 50, 0))
    assert "Index Scan Backward using ix_users_created_at_id" in plan
    assert "Seq Scan" not in plan and "Sort" not in plan
    plan = await explain(db, service.page_query(service.filters(status="blocked"), 50, 0))
    assert "ix_users_status_created_at_id" in plan and "Seq Scan" not in plan and "Sort" not in plan

    # the search is a bitmap scan of the trigram indexes, OR-ed
    fragment = big_table[6:13]  # seven characters from the middle of one username
    plan = await explain(db, service.page_query(service.filters(search=fragment.upper()), 50, 0))
    assert "Seq Scan" not in plan
    assert "BitmapOr" in plan
    for column in service.SEARCHED_COLUMNS:
        assert f"Bitmap Index Scan on ix_users_{column}_trgm" in plan
    plan = await explain(db, service.count_query(service.filters(search=fragment)))
    assert "Seq Scan" not in plan and "ix_users_username_trgm" in plan

    # digits add the messenger id and (within 32 bits) the primary key
    plan = await explain(db, service.page_query(service.filters(search="7000012345"), 50, 0))
    assert "Seq Scan" not in plan
    assert "Bitmap Index Scan on users_messenger_id_key" in plan
    assert "Bitmap Index Scan on users_pkey" not in plan
    plan = await explain(db, service.page_query(service.filters(search="12345"), 50, 0))
    assert "Bitmap Index Scan on users_pkey" in plan and "Seq Scan" not in plan

    # and through the API
    r = await client.get("/users", params={"search": fragment})
    assert r.status_code == 200
    assert big_table in [item["username"] for item in r.json()["items"]]
    r = await client.get("/users", params={"per_page": 200, "page": 3})
    assert r.json()["total"] == SIZE and len(r.json()["items"]) == 200
    r = await client.get("/users", params={"status": "blocked", "limit": 10})
    assert r.json()["total"] == SIZE // 10 and len(r.json()["items"]) == 10

"""Seed steps for the benchmark scenario sets (PostgreSQL only: they use generate_series)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarios import SeedContext
    from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
    from sqlmodel import SQLModel

USERS = int(os.environ.get("BENCH_USERS", "100000"))
FIRST_MESSENGER_ID = 1_000_000
# Usernames as varied as real ones (a shared prefix such as "user<N>" would put a few
# trigrams in every row and make any trigram search scan the whole index).
USERNAME_SQL = "substr(md5(g::text), 1, 12)"


def username(n: int) -> str:
    """The seeded username of user number ``n`` (as USERNAME_SQL makes it)."""
    return hashlib.md5(str(n).encode()).hexdigest()[:12]


def migrate(ctx: SeedContext) -> None:
    """Upgrade the database the service will use (every installed plugin's branch)."""
    subprocess.run([sys.executable, "-m", "subsvc", "migrate"], env=dict(ctx.env), check=True)


def batches(count: int, size: int) -> Iterator[range]:
    """The numbers ``0 .. count - 1`` in ranges of ``size`` (the last one shorter), one a batch
    of rows."""
    for start in range(0, count, size):
        yield range(start, min(count, start + size))


@asynccontextmanager
async def unpooled(url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on ``url`` without a pool (a connection per use) for the benchmark's own
    seeding and readings beside the service, disposed at the end."""
    from sqlalchemy.ext.asyncio import create_async_engine
    from sqlalchemy.pool import NullPool

    engine = create_async_engine(url, poolclass=NullPool)
    try:
        yield engine
    finally:
        await engine.dispose()


@asynccontextmanager
async def transaction(url: str) -> AsyncIterator[AsyncConnection]:
    """A connection to ``url`` (:func:`unpooled`) in a transaction committed at the end."""
    async with unpooled(url) as engine, engine.begin() as connection:
        yield connection


async def insert_ids(connection: AsyncConnection, records: Sequence[SQLModel]) -> list[int]:
    """Insert ``records`` (of one table, their ``id`` left to the database) as one multi-row
    INSERT (SQLAlchemy sends it in pages of 1,000 rows); their new ids, in the records' order."""
    from sqlalchemy import insert

    if not records:
        return []
    model: Any = type(records[0])  # a table model: it has a __table__
    table = model.__table__
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    made = await connection.execute(statement, [record.model_dump(exclude={"id"}) for record in records])
    return [int(row[0]) for row in made.all()]


async def insert_admin(connection: AsyncConnection, messenger_id: int, now: datetime, **fields: Any) -> int:
    """Insert the administrator the administrator benchmarks sign in as (a users row); its id."""
    from subsvc_users.api import User

    row = User(messenger_id=messenger_id, first_name="Bench admin", created_at=now, updated_at=now, **fields)
    (admin_id,) = await insert_ids(connection, [row])
    return admin_id


async def _seed_users(url: str, count: int) -> None:
    import asyncpg

    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        existing = await connection.fetchval("SELECT count(*) FROM users")
        if existing >= count:
            # The rows earlier runs updated are dead now; a server whose autovacuum is off (this
            # machine's) would keep them, and every run would start on a bigger mess.
            await connection.execute("VACUUM ANALYZE")
            return
        group = await connection.fetchval("SELECT id FROM promo_groups WHERE is_default LIMIT 1")
        if group is None:
            group = await connection.fetchval(
                "INSERT INTO promo_groups (name, period_discounts, is_default, created_at, updated_at)"
                " VALUES ('Bench default', '{}', true, now(), now()) RETURNING id"
            )
        names = "ARRAY['Ivan','Maria','Alexei','Olga','Dmitry','Anna','Sergei','Elena','Pavel','Irina']"
        await connection.execute(
            f"""
            INSERT INTO users (messenger_id, username, first_name, last_name, status, language,
                               balance_kopeks, has_had_paid_subscription, has_made_first_topup,
                               referral_code, promo_group_id, created_at, updated_at)
            SELECT {FIRST_MESSENGER_ID} + g, {USERNAME_SQL}, ({names})[1 + g % 10], 'Surname' || (g % 997),
                   CASE WHEN g % 20 = 0 THEN 'blocked' ELSE 'active' END, 'ru',
                   (g * 37) % 100000, g % 3 = 0, g % 2 = 0, 'ref' || lpad(g::text, 8, '0'), $1,
                   now() - make_interval(secs => g), now()
            FROM generate_series($2::int, $3::int) AS g
            """,
            group,
            existing + 1,
            count,
        )
        await connection.execute("VACUUM ANALYZE users")  # as after any bulk load
    finally:
        await connection.close()


def seed_users(ctx: SeedContext) -> None:
    """Migrate, then make sure BENCH_USERS users (default 100,000) exist."""
    url = ctx.env["DATABASE_URL"]
    if not url.startswith("postgresql"):
        raise SystemExit("the users scenario set needs --database-url postgresql+asyncpg://...")
    migrate(ctx)
    asyncio.run(_seed_users(url, USERS))

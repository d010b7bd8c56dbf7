"""`python -m subsvc.testing_db URL`: create the PostgreSQL test database if it is missing."""

from __future__ import annotations

import asyncio
import sys

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool


async def ensure_database(url: str) -> None:
    target = make_url(url)
    if target.get_backend_name() != "postgresql" or not target.database:
        return
    engine = create_async_engine(
        target.set(database="postgres"), poolclass=NullPool, isolation_level="AUTOCOMMIT"
    )
    try:
        async with engine.connect() as connection:
            exists = await connection.scalar(
                text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": target.database}
            )
            if not exists:
                await connection.execute(text(f'CREATE DATABASE "{target.database}"'))
    finally:
        await engine.dispose()


if __name__ == "__main__":
    asyncio.run(ensure_database(sys.argv[1]))

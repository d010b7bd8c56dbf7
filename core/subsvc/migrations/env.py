"""Alembic environment shared by core and every plugin branch (see subsvc.db.migrate)."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel

config = context.config
URL = config.attributes["database_url"]


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_online() -> None:
    engine = create_async_engine(URL, poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(run_with)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=URL, target_metadata=SQLModel.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(run_online())

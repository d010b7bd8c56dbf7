"""Account merge, payments' part (``cabinet_account_merging``): the removed user's payments
become the kept user's. An idempotency key both users used is cleared on the removed user's
payment first (a key only guards against a double submit, long past by then), so the unique
``(user_id, idempotency_key)`` holds and no payment record is lost."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_payments.models import Payment

PAYMENTS = SQLModel.metadata.tables[Payment.__tablename__]


@hookimpl(optionalhook=True)
async def cabinet_account_merging(
    app: Starlette, session: AsyncSession, kept_user_id: int, removed_user_id: int
) -> None:
    """Payments' part of an account merge (see the module's text)."""
    kept_keys = select(PAYMENTS.c.idempotency_key).where(
        PAYMENTS.c.user_id == kept_user_id, PAYMENTS.c.idempotency_key.is_not(None)
    )
    await session.exec(
        update(PAYMENTS)
        .where(PAYMENTS.c.user_id == removed_user_id, PAYMENTS.c.idempotency_key.in_(kept_keys))
        .values(idempotency_key=None)
    )
    await reassign(session, PAYMENTS.c.user_id, kept_user_id, removed_user_id)

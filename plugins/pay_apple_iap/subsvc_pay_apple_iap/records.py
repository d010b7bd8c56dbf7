"""The apple_iap_transactions rows: finding, searching, and what Apple says of a refund."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import fits_int32, from_attributes
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_pay_apple_iap.client import AppleTransaction
from subsvc_pay_apple_iap.models import CREDITED, REVOKED, AppleIapTransaction
from subsvc_pay_apple_iap.schemas import TransactionRevoked

TRANSACTION_REVOKED = "apple_iap.transaction_revoked"


async def find(
    session: AsyncSession, transaction_id: str, *, lock: bool = False
) -> AppleIapTransaction | None:
    """The row of an Apple transaction; ``lock``: locked until the transaction ends and read
    as last committed (``FOR UPDATE``; on SQLite a touching ``UPDATE`` first takes the
    database's one write turn), so concurrent notices of one transaction run in turn."""
    where = col(AppleIapTransaction.transaction_id) == transaction_id
    query = select(AppleIapTransaction).where(where)
    if lock:
        if session.get_bind().dialect.name != "postgresql":
            await session.exec(
                update(AppleIapTransaction).where(where).values(status=col(AppleIapTransaction.status))
            )
        query = query.with_for_update().execution_options(populate_existing=True)
    return (await session.exec(query)).first()


async def search(session: AsyncSession, q: str, limit: int) -> list[AppleIapTransaction]:
    """Rows whose transaction id or original transaction id is ``q``, or whose user id is
    ``q``: one query, each condition on an index; newest first."""
    conditions = [
        col(AppleIapTransaction.transaction_id) == q,
        col(AppleIapTransaction.original_transaction_id) == q,
    ]
    if q.isdigit() and fits_int32(int(q)):
        conditions.append(col(AppleIapTransaction.user_id) == int(q))
    query = select(AppleIapTransaction).where(or_(*conditions))
    return list((await session.exec(query.order_by(col(AppleIapTransaction.id).desc()).limit(limit))).all())


async def recent(session: AsyncSession, limit: int) -> list[AppleIapTransaction]:
    """The ``limit`` most recently credited rows."""
    query = select(AppleIapTransaction).order_by(col(AppleIapTransaction.id).desc()).limit(limit)
    return list((await session.exec(query)).all())


def revoke(
    app: Starlette, session: AsyncSession, row: AppleIapTransaction, apple: AppleTransaction, source: str
) -> bool:
    """Record Apple's revocation of a row (its time and reason) and publish
    ``apple_iap.transaction_revoked``; ``False`` when it was already recorded."""
    if row.status == REVOKED:
        return False
    now = utcnow()
    row.status, row.revoked_at = REVOKED, apple.revoked_at or now
    row.revocation_reason, row.updated_at = apple.revocation_reason, now
    session.add(row)
    event = from_attributes(TransactionRevoked, row, source=source, occurred_at=now)
    services(app).events.publish(session, TRANSACTION_REVOKED, event)
    return True


def reinstate(session: AsyncSession, row: AppleIapTransaction) -> bool:
    """Apple reversed a refund: the row is credited again; ``False`` when it was not revoked."""
    if row.status != REVOKED:
        return False
    row.status, row.revoked_at, row.revocation_reason, row.updated_at = CREDITED, None, None, utcnow()
    session.add(row)
    return True


def noted(row: AppleIapTransaction, key: str, entry: dict[str, Any], at: datetime | None = None) -> bool:
    """Append ``entry`` to the row's ``data[key]`` unless an equal one is there (a notification
    delivered twice is kept once); ``False`` when it was."""
    entries = list(row.data.get(key, []))
    if entry in entries:
        return False
    row.data = {**row.data, key: [*entries, entry]}
    row.updated_at = at or utcnow()
    return True

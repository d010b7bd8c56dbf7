"""Support's view: the search, and the reconciliation of recent transactions with Apple (asked
with no database transaction open; what differs is then recorded; nothing is ever credited)."""

from __future__ import annotations

import asyncio

from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_pay_apple_iap import records
from subsvc_pay_apple_iap.client import AppleTransaction, AppStoreClient, TransactionNotFound
from subsvc_pay_apple_iap.models import REVOKED, AppleIapTransaction
from subsvc_pay_apple_iap.schemas import ReconcileDifference, ReconcileReport
from subsvc_pay_apple_iap.settings import AppleIapSettings
from subsvc_pay_apple_iap.tokens import account_token, same_token

CONCURRENT_CALLS = 8
MISSING = "missing at Apple"


def differences(
    row: AppleIapTransaction, apple: AppleTransaction | None, settings: AppleIapSettings
) -> list[str]:
    """What Apple says differently of a credited transaction (``None``: Apple knows it not)."""
    if apple is None:
        return [MISSING]
    found = []
    if (apple.revoked_at is not None) != (row.status == REVOKED):
        found.append("revoked at Apple" if apple.revoked_at else "no longer revoked at Apple")
    for what, ours, theirs in (
        ("product", row.product_id, apple.product_id),
        ("bundle", settings.APPLE_IAP_BUNDLE_ID, apple.bundle_id),
        ("original transaction", row.original_transaction_id, apple.original_transaction_id),
    ):
        if ours != theirs:
            found.append(f"{what}: ours {ours}, Apple's {theirs}")
    if not same_token(apple.app_account_token, account_token(settings, row.user_id)):
        found.append("appAccountToken of another account")
    return found


async def reconcile(app: Starlette, settings: AppleIapSettings, limit: int) -> ReconcileReport:
    """Ask Apple about the ``limit`` most recent transactions and record what differs: a
    revocation no notification told us (``apple_iap.transaction_revoked``), a reversed one,
    the differences (``drift``). Apple down: :class:`ProviderError`, nothing recorded."""
    db = services(app).db
    async with db.session(read_only=True) as session:
        rows = await records.recent(session, limit)
    client = AppStoreClient(app, settings)
    turns = asyncio.Semaphore(CONCURRENT_CALLS)

    async def ask(transaction_id: str) -> AppleTransaction | None:
        async with turns:
            try:
                return await client.transaction(transaction_id)
            except TransactionNotFound:
                return None

    answers = await asyncio.gather(*(ask(row.transaction_id) for row in rows))
    report = ReconcileReport(
        checked=len(rows), drift_count=0, notification_backlog=0, revoked=[], differences=[]
    )
    async with db.session() as session:
        now = utcnow()
        for row, apple in zip(rows, answers, strict=True):
            locked = await records.find(session, row.transaction_id, lock=True)
            if locked is None:  # its payment was deleted meanwhile
                continue
            found = differences(locked, apple, settings)
            if (
                apple is not None
                and apple.revoked_at is not None
                and records.revoke(app, session, locked, apple, "reconcile")
            ):
                report.revoked.append(locked.transaction_id)
                report.notification_backlog += 1
            elif apple is not None and apple.revoked_at is None and locked.status == REVOKED:
                records.reinstate(session, locked)
            locked.reconciled_at, locked.drift = now, "; ".join(found)[:1000] or None
            session.add(locked)
            if found:
                report.drift_count += 1
                report.differences.append(
                    ReconcileDifference(
                        transaction_id=locked.transaction_id, user_id=locked.user_id, differences=found
                    )
                )
        await session.commit()
    return report

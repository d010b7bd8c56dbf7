"""One user's 50 concurrent purchases with a balance for 10 (PostgreSQL: real concurrency, each
request its own session): exactly 10 succeed, the balance never goes below 0, 10
``subscription_payment`` transactions, and the panel sync queue holds exactly the 10 changes."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import col, select
from subsvc_panel_sync.api import PanelSyncState


@pytest.mark.sales_env(PANEL_SYNC_POLL_SECONDS="60")
async def test_fifty_purchases_with_a_balance_for_ten(
    db, postgres, buyer, cabinet, make_tariff, transactions_over_http
):
    if not postgres:
        pytest.skip("real concurrency needs PostgreSQL (SQLite serializes writers)")
    tariff = await make_tariff(period_prices={"30": 10_000})
    async with buyer(balance_kopeks=100_000) as (user, _):
        clients = [cabinet(user.id) for _ in range(50)]
        body = {"tariff_id": tariff.id, "period_days": 30}
        try:
            answers = await asyncio.gather(
                *(c.post("/cabinet/subscription/purchase-tariff", json=body) for c in clients)
            )
        finally:
            for c in clients:
                await c.aclose()
    statuses = [a.status_code for a in answers]
    assert (statuses.count(200), statuses.count(402)) == (10, 40)
    balances = sorted(a.json()["balance_kopeks"] for a in answers if a.status_code == 200)
    assert balances == list(range(0, 100_000, 10_000))  # each purchase saw the one before
    payments = [t for t in await transactions_over_http(user) if t["type"] == "subscription_payment"]
    assert len(payments) == 10
    async with db.session() as session:
        queued = (
            await session.exec(select(PanelSyncState).where(col(PanelSyncState.user_id) == user.id))
        ).all()
    assert [(row.version) for row in queued] == [10]  # one subscription, 10 committed changes

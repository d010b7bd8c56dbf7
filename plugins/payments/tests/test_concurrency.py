"""Many payments of one user notified at once: every one credits, each once. On PostgreSQL
the transactions really overlap (separate sessions and connections), and the balance's
conditional UPDATE and the payment row locks decide."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from sqlmodel import select
from subsvc_billing.api import Transaction

from subsvc.db import utcnow

URL = "/webhooks/payments/fakepay"


@pytest.fixture
def subsvc_settings_overrides():
    return {"DATABASE_POOL_SIZE": 20, "DATABASE_MAX_OVERFLOW": 5, "DATABASE_TIMEOUT": 60}


async def test_100_payments_of_one_user_credited_at_once(
    db, insert_user, new_payment, credit, outbox, balance_over_http, transactions_over_http
):
    if db.dialect != "postgresql":
        pytest.skip("real overlapping transactions need PostgreSQL")
    user = await insert_user(balance_kopeks=10)
    amounts = [100 + i for i in range(100)]
    for i, amount in enumerate(amounts):
        await new_payment(user.id, amount, provider_payment_id=f"c-{i}")
    calls = [credit(f"c-{i}", amount) for i, amount in enumerate(amounts)]
    calls += [credit(f"c-{i}", amount) for i, amount in enumerate(amounts[:20])]  # and some twice
    outcomes = await asyncio.gather(*calls)
    assert Counter(o.credited for o in outcomes) == {True: 100, False: 20}
    assert await balance_over_http(user) == 10 + sum(amounts)
    deposits = await transactions_over_http(user)
    assert len(deposits) == 100
    assert sorted(d["amount_kopeks"] for d in deposits) == amounts
    assert sorted(o.new_balance_kopeks for o in outcomes if o.credited)[-1] == 10 + sum(amounts)
    assert Counter(kind for kind, _ in await outbox())["balance.topped_up"] == 100


class TestOverHttp:
    """The same through the notification endpoint: 100 signed notifications of one user's
    payments, and 20 of them twice, posted at once."""

    async def test_100_notifications_of_one_user_at_once(
        self, db, insert_user, new_payment, anon_client, fake_provider, provider_plugin, balance_over_http
    ):
        if db.dialect != "postgresql":
            pytest.skip("real overlapping transactions need PostgreSQL")
        user = await insert_user()
        amounts = [1_000 + i for i in range(100)]
        for i, amount in enumerate(amounts):
            await new_payment(user.id, amount, provider_payment_id=f"h-{i}")
        now = utcnow()
        signed = [
            provider_plugin.notification(f"h-{i}", "paid", now, amount=amount, currency="RUB")
            for i, amount in enumerate(amounts)
        ]
        posts = [
            anon_client.post(URL, content=body, headers={"X-Fake-Signature": signature})
            for body, signature in [*signed, *signed[:20]]
        ]
        answers = await asyncio.gather(*posts)
        assert Counter(answer.status_code for answer in answers) == {200: 120}
        assert await balance_over_http(user) == sum(amounts)
        deposits = await db_deposits(db, user.id)
        assert sorted(deposits) == amounts


async def db_deposits(db, user_id: int) -> list[int]:
    async with db.session(read_only=True) as session:
        query = select(Transaction.amount_kopeks).where(
            Transaction.user_id == user_id, Transaction.type == "deposit"
        )
        return list((await session.exec(query)).all())

"""Account merge, billing's part: the balance moves once, recorded on both sides, and every
transaction follows it."""

from __future__ import annotations

from subsvc_billing.merging import cabinet_account_merging
from subsvc_billing.models import Transaction
from subsvc_billing.service import transfer_balance
from subsvc_users.models import User


async def test_the_balance_moves_once_with_a_withdrawal_and_a_deposit(app, db, insert_user, rows):
    removed = await insert_user(balance_kopeks=12_345)
    kept = await insert_user(balance_kopeks=55)
    async with db.session() as session:
        session.add(Transaction(user_id=removed.id, type="deposit", amount_kopeks=12_345))
        report = await cabinet_account_merging(app, session, kept.id, removed.id)
        again = await transfer_balance(
            session, app.state.events, removed.id, kept.id, key=f"account-merge:{removed.id}", description="x"
        )
        await session.commit()
    assert report == {"moved_balance_kopeks": 12_345} and again == 0
    (gone,) = await rows(User, id=removed.id)
    (merged,) = await rows(User, id=kept.id)
    assert (gone.balance_kopeks, merged.balance_kopeks) == (0, 12_400)
    assert merged.has_made_first_topup is False  # a transfer is not a top-up
    history = await rows(Transaction)
    assert {t.user_id for t in history} == {kept.id}
    assert [(t.type, t.amount_kopeks, t.payment_method, t.balance_after_kopeks) for t in history[1:]] == [
        ("withdrawal", 12_345, "balance", 0),
        ("deposit", 12_345, "balance", 12_400),
    ]


async def test_nothing_to_move_records_nothing(app, db, insert_user, rows):
    removed, kept = await insert_user(), await insert_user(balance_kopeks=10)
    async with db.session() as session:
        assert await cabinet_account_merging(app, session, kept.id, removed.id) == {"moved_balance_kopeks": 0}
        await session.commit()
    assert await rows(Transaction) == []

"""Account merge, payments' part: every payment of the removed user becomes the kept user's;
an idempotency key both used is cleared on the removed user's payment, none is lost."""

from __future__ import annotations

from subsvc_payments.api import Payment
from subsvc_payments.merging import cabinet_account_merging


async def test_the_removed_users_payments_follow_the_kept_user(app, db, insert_user, new_payment, rows):
    removed, kept = await insert_user(), await insert_user()
    mine = await new_payment(kept.id, 100, idempotency_key="shared")
    clash = await new_payment(removed.id, 200, idempotency_key="shared")
    other = await new_payment(removed.id, 300, idempotency_key="only-removed")
    plain = await new_payment(removed.id, 400)
    async with db.session() as session:
        await cabinet_account_merging(app, session, kept.id, removed.id)
        await session.commit()
    payments = {p.id: p for p in await rows(Payment)}
    assert set(payments) == {mine.id, clash.id, other.id, plain.id}
    assert {p.user_id for p in payments.values()} == {kept.id}
    assert [payments[i].idempotency_key for i in (mine.id, clash.id, other.id, plain.id)] == [
        "shared",
        None,
        "only-removed",
        None,
    ]

"""Account merge, promocodes' part: a code both users activated stays activated once (the
kept user's), the others move; one pending discount per user, the kept user's winning."""

from __future__ import annotations

from subsvc_promocodes.merging import cabinet_account_merging
from subsvc_promocodes.models import PromoCode, PromoCodeDiscount, PromoCodeUse


async def test_duplicates_keep_the_kept_users_row(db, insert_user, rows):
    removed, kept = await insert_user(), await insert_user()
    async with db.session() as session:
        both, only = (
            PromoCode(code="BOTH", type="balance", created_by=removed.id),
            PromoCode(code="ONLY", type="balance"),
        )
        session.add_all([both, only])
        await session.flush()
        session.add_all(
            [
                PromoCodeUse(promocode_id=both.id, user_id=removed.id),
                PromoCodeUse(promocode_id=both.id, user_id=kept.id),
                PromoCodeUse(promocode_id=only.id, user_id=removed.id),
                PromoCodeDiscount(user_id=removed.id, code="ONLY", percent=30),
                PromoCodeDiscount(user_id=kept.id, code="BOTH", percent=10),
            ]
        )
        await session.commit()
    kept_use = (await rows(PromoCodeUse, user_id=kept.id))[0].id
    async with db.session() as session:
        await cabinet_account_merging(session, kept.id, removed.id)
        await session.commit()
    uses = await rows(PromoCodeUse)
    assert sorted((u.user_id, u.promocode_id) for u in uses) == sorted(
        [(kept.id, both.id), (kept.id, only.id)]
    )
    assert kept_use in {u.id for u in uses}
    assert [(d.user_id, d.percent) for d in await rows(PromoCodeDiscount)] == [(kept.id, 10)]
    assert {c.created_by for c in await rows(PromoCode)} == {kept.id, None}

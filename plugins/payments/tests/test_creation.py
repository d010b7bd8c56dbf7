"""Creating payments: an idempotency key returns the first payment; expiry from the settings."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from subsvc_payments.api import PENDING, IdempotencyConflict, Payment, attach_provider_payment, create_payment
from subsvc_payments.settings import PaymentsSettings

from subsvc.db import utcnow


async def test_a_repeated_key_returns_the_first_payment(app, db, insert_user, rows):
    user = await insert_user()
    results = []
    for _ in range(3):
        async with db.session() as session:
            payment, made = await create_payment(app, session, user.id, "fakepay", "card", 5_000, "key-1")
            await session.commit()
            results.append((payment.id, made))
    assert [made for _, made in results] == [True, False, False]
    assert len({payment_id for payment_id, _ in results}) == 1
    (stored,) = await rows(Payment, user_id=user.id)
    assert (stored.status, stored.amount_kopeks, stored.currency, stored.idempotency_key) == (
        PENDING,
        5_000,
        "RUB",
        "key-1",
    )


async def test_concurrent_double_submits_make_one_payment(app, db, insert_user, rows):
    user = await insert_user()

    async def submit() -> tuple[int | None, bool]:
        async with db.session() as session:
            payment, made = await create_payment(app, session, user.id, "fakepay", "sbp", 7_000, "double")
            await session.commit()
            return payment.id, made

    results = await asyncio.gather(*(submit() for _ in range(8)))
    assert sorted(made for _, made in results) == [False] * 7 + [True]
    assert len({payment_id for payment_id, _ in results}) == 1
    assert len(await rows(Payment, user_id=user.id)) == 1


async def test_keys_are_per_user_and_optional(app, db, insert_user, rows):
    ann, bob = await insert_user(), await insert_user()
    async with db.session() as session:
        first, _ = await create_payment(app, session, ann.id, "fakepay", "card", 100, "same")
        other, made = await create_payment(app, session, bob.id, "fakepay", "card", 100, "same")
        plain = [await create_payment(app, session, ann.id, "fakepay", "card", 100, None) for _ in range(2)]
        await session.commit()
    assert made and other.id != first.id
    assert all(made for _, made in plain)
    assert len(await rows(Payment)) == 4


@pytest.mark.parametrize(
    ("provider", "method", "amount"),
    [("fakepay", "card", 999), ("fakepay", "sbp", 1_000), ("other", "card", 1_000)],
)
async def test_a_key_reused_for_another_payment_is_a_conflict(
    app, db, insert_user, rows, provider, method, amount
):
    user = await insert_user()
    async with db.session() as session:
        await create_payment(app, session, user.id, "fakepay", "card", 1_000, "k")
        with pytest.raises(IdempotencyConflict):
            await create_payment(app, session, user.id, provider, method, amount, "k")


async def test_a_payment_must_be_positive(app, db, insert_user):
    user = await insert_user()
    async with db.session() as session:
        with pytest.raises(ValueError, match="positive"):
            await create_payment(app, session, user.id, "fakepay", "card", 0, None)


async def test_a_new_payment_expires_after_the_configured_time(app, db, insert_user, change_settings):
    change_settings(PaymentsSettings, PAYMENTS_PENDING_TTL_MINUTES=15)
    user = await insert_user()
    before = utcnow()
    async with db.session() as session:
        payment, _ = await create_payment(app, session, user.id, "fakepay", "card", 100, None)
        given = utcnow() + timedelta(hours=2)
        chosen, _ = await create_payment(
            app, session, user.id, "fakepay", "card", 100, None, expires_at=given
        )
    assert payment.expires_at is not None
    assert before + timedelta(minutes=15) <= payment.expires_at <= utcnow() + timedelta(minutes=15)
    assert chosen.expires_at == given


async def test_the_provider_id_is_attached_once_the_provider_answers(app, db, insert_user, reload, credit):
    user = await insert_user()
    async with db.session() as session:
        payment, _ = await create_payment(app, session, user.id, "fakepay", "card", 300, None, data={"a": 1})
        await session.commit()
        assert payment.id is not None and payment.provider_payment_id is None
        await attach_provider_payment(session, payment.id, "prov-77", {"url": "https://pay.example/77"})
        await session.commit()
    stored = await reload(Payment, payment.id)
    assert (stored.provider_payment_id, stored.data) == ("prov-77", {"a": 1, "url": "https://pay.example/77"})
    assert (await credit("prov-77", 300)).credited

"""`POST /cabinet/balance/topup` through the test provider plugin: one payment per
Idempotency-Key, the method's limits, a provider that is down answers 502 and fails it."""

from __future__ import annotations

import pytest
from subsvc_payments.api import FAILED, PENDING, Payment

TOPUP = "/cabinet/balance/topup"
BODY = {"amount_kopeks": 50_000, "payment_method": "fakepay", "payment_option": "card"}


async def test_a_topup_creates_one_payment_and_answers_its_url(insert_user, cabinet, fake_provider, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json=BODY, headers={"Idempotency-Key": "k-1"})
    assert response.status_code == 200, response.text
    answer = response.json()
    (payment,) = await rows(Payment, user_id=user.id)
    assert answer | {"expires_at": None} == {
        "payment_id": str(payment.id),
        "payment_url": f"https://pay.example/fp-{payment.id}",
        "amount_kopeks": 50_000,
        "amount_rubles": 500.0,
        "status": PENDING,
        "expires_at": None,
    }
    assert answer["expires_at"] is not None
    assert (payment.provider, payment.method, payment.provider_payment_id, payment.idempotency_key) == (
        "fakepay",
        "card",
        f"fp-{payment.id}",
        "k-1",
    )
    assert payment.data == {"fake": True, "payment_url": answer["payment_url"]}
    (asked,) = fake_provider.created
    assert (asked.payment_id, asked.amount_kopeks, asked.currency, asked.option) == (
        payment.id,
        50_000,
        "RUB",
        "card",
    )
    assert asked.idempotence_key == f"subsvc-payment-{payment.id}" and asked.return_url is None


async def test_the_same_idempotency_key_answers_the_first_payment(insert_user, cabinet, fake_provider, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        first = await http.post(TOPUP, json=BODY, headers={"Idempotency-Key": "same"})
        again = await http.post(TOPUP, json=BODY, headers={"Idempotency-Key": "same"})
        more = BODY | {"amount_kopeks": 60_000}
        other = await http.post(TOPUP, json=more, headers={"Idempotency-Key": "same"})
        keyless = [await http.post(TOPUP, json=BODY) for _ in range(2)]
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()
    assert other.status_code == 409
    assert [r.status_code for r in keyless] == [200, 200]
    assert len({r.json()["payment_id"] for r in [first, *keyless]}) == 3
    assert len(fake_provider.created) == 3
    assert len(await rows(Payment, user_id=user.id)) == 3


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"amount_kopeks": 999}, 422, None),
        ({"amount_kopeks": 9_999}, 400, "Minimum amount is 100.00 RUB"),
        ({"amount_kopeks": 1_000_001}, 400, "Maximum amount is 10000.00 RUB"),
        ({"payment_method": "nopay"}, 400, "Invalid or unavailable payment method"),
        ({"payment_option": "cash"}, 400, "Invalid payment option: cash"),
    ],
)
async def test_refused_topups_make_no_payment(
    insert_user, cabinet, fake_provider, rows, body, status, detail
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json=BODY | body)
    assert response.status_code == status, response.text
    if detail is not None:
        assert response.json() == {"detail": detail}
    assert await rows(Payment) == [] and fake_provider.created == []


async def test_an_unconfigured_provider_is_an_unavailable_method(insert_user, cabinet, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json=BODY)
    assert response.status_code == 400
    assert response.json() == {"detail": "Invalid or unavailable payment method"}
    assert await rows(Payment) == []


async def test_a_provider_that_is_down_answers_502_and_fails_the_payment(
    insert_user, cabinet, fake_provider, rows, outbox
):
    user = await insert_user()
    fake_provider.down = True
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json=BODY, headers={"Idempotency-Key": "down"})
        again = await http.post(TOPUP, json=BODY, headers={"Idempotency-Key": "down"})
    assert response.status_code == 502
    assert response.json() == {
        "detail": "Payment provider fakepay failed to create the payment: connection refused"
    }
    (payment,) = await rows(Payment, user_id=user.id)
    assert (payment.status, payment.failure_reason, payment.provider_payment_id) == (
        FAILED,
        "provider_error: connection refused",
        None,
    )
    assert again.status_code == 502
    assert again.json() == {"detail": f"Payment {payment.id} is failed: provider_error: connection refused"}
    assert [kind for kind, _ in await outbox()] == ["payment.failed"]


async def test_it_needs_a_cabinet_user(anon_client, client, fake_provider):
    assert (await anon_client.post(TOPUP, json=BODY)).status_code == 401
    assert (await client.post(TOPUP, json=BODY)).status_code == 401

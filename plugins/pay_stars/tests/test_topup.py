"""`POST /cabinet/balance/topup` with the method `messenger_stars`: the amount asked is kept,
the invoice asks it in whole stars (rounded half up); those stars paid credit the amount asked."""

from __future__ import annotations

import pytest
from subsvc_pay_stars.testing import StarsFake
from subsvc_payments.api import FAILED, SUCCEEDED, Payment
from subsvc_payments.testing import topup

from subsvc.testing_messenger import FakeBotAPI


@pytest.mark.stars_env(STARS_RATE_RUB="1.79")
async def test_a_topup_asks_whole_stars_and_credits_the_amount_asked(
    insert_user,
    cabinet,
    anon_client,
    stars_fake: StarsFake,
    fake_bot_api: FakeBotAPI,
    rows,
    balance_over_http,
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        answer = await topup(http, "messenger_stars", 10_000)
    (payment,) = await rows(Payment, user_id=user.id)
    (link, invoice), *_ = fake_bot_api.invoices.items()
    assert (answer["payment_url"], answer["amount_kopeks"], payment.amount_kopeks) == (link, 10_000, 10_000)
    assert (invoice["prices"], payment.provider_payment_id) == (
        [{"label": "Пополнение баланса", "amount": 56}],  # 55.87 stars
        f"stars-topup:{payment.id}:56:10000",
    )

    update = fake_bot_api.pay(link, 900_000_777)
    delivery = stars_fake.update(update)
    response = await anon_client.post(delivery.path, content=delivery.body, headers=dict(delivery.headers))

    assert response.status_code == 200
    assert [(p.status, p.paid_amount_kopeks) for p in await rows(Payment)] == [(SUCCEEDED, 10_000)]
    assert await balance_over_http(user) == 10_000


async def test_the_messenger_down_makes_the_topup_502(insert_user, cabinet, fake_bot_api: FakeBotAPI, rows):
    fake_bot_api.fail("createInvoiceLink", 503, "Service Unavailable")
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(
            "/cabinet/balance/topup", json={"amount_kopeks": 10_000, "payment_method": "messenger_stars"}
        )
    assert response.status_code == 502 and "Service Unavailable" in response.json()["detail"]
    assert [p.status for p in await rows(Payment)] == [FAILED]

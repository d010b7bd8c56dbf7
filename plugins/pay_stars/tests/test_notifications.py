"""`POST /webhooks/payments/messenger_stars`: the bot forwards the messenger's Updates with the
webhook secret. A paid invoice credits its user once; a forged, unreadable or unconfigured
delivery changes nothing; pre-checkout queries of ours are answered."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from subsvc_pay_stars.testing import PATH, SECRET, StarsFake
from subsvc_payments.api import PENDING, REFUSED_MISMATCH, SUCCEEDED, Payment
from subsvc_payments.testing import Delivery

from subsvc.testing_messenger import FakeBotAPI

INVOICE = "/cabinet/balance/stars-invoice"
AMOUNT = 25_000  # 250 stars at 1.00 RUB


@pytest.fixture
def invoice(http: httpx2.AsyncClient, rows: Any) -> Callable[..., Awaitable[Payment]]:
    """``await invoice()``: a Stars invoice made through the cabinet; its payment."""

    async def make(amount: int = AMOUNT) -> Payment:
        response = await http.post(INVOICE, json={"amount_kopeks": amount})
        assert response.status_code == 200, response.text
        (payment,) = [
            p for p in await rows(Payment) if p.data.get("payment_url") == response.json()["invoice_url"]
        ]
        return payment

    return make


@pytest.fixture
def deliver(anon_client: httpx2.AsyncClient) -> Callable[[Delivery], Awaitable[httpx2.Response]]:
    async def send(delivery: Delivery) -> httpx2.Response:
        return await anon_client.post(delivery.path, content=delivery.body, headers=dict(delivery.headers))

    return send


def ppid(payment: Payment) -> str:
    assert payment.provider_payment_id is not None
    return payment.provider_payment_id


async def test_a_paid_update_credits_the_invoices_user_once(
    invoice, deliver, stars_fake: StarsFake, user, reload, balance_over_http, transactions_over_http
):
    payment = await invoice()
    await stars_fake.pay(ppid(payment))  # paid by someone else than the user (a gift)
    update = stars_fake.paid[ppid(payment)]

    answers = [await deliver(stars_fake.notification(ppid(payment))) for _ in range(3)]  # redelivered

    assert [(a.status_code, a.json()) for a in answers] == [(200, {"status": "ok"})] * 3
    paid = await reload(Payment, payment.id)
    assert (paid.status, paid.paid_amount_kopeks, paid.flagged_late) == (SUCCEEDED, AMOUNT, False)
    charge = update["message"]["successful_payment"]
    assert paid.data["paid_notification"] == {
        **charge,
        "update_id": update["update_id"],
        "payer_id": 900_000_777,
    }
    assert paid.data["paid_notification"]["telegram_payment_charge_id"].startswith("stxFake")
    assert await balance_over_http(user) == AMOUNT
    deposits = [t for t in await transactions_over_http(user) if t["type"] == "deposit"]
    assert [(t["amount_kopeks"], t["payment_method"], t["external_id"]) for t in deposits] == [
        (AMOUNT, "messenger_stars", ppid(payment))
    ]


async def test_an_invoice_paid_again_is_not_credited_twice_and_logged(
    invoice, deliver, stars_fake: StarsFake, user, balance_over_http, caplog
):
    payment = await invoice()
    await stars_fake.pay(ppid(payment))
    first = stars_fake.notification(ppid(payment))
    await stars_fake.pay(ppid(payment))  # the same link paid a second time: another charge
    second = stars_fake.paid[ppid(payment)]["message"]["successful_payment"]["telegram_payment_charge_id"]

    answers = [await deliver(first), await deliver(stars_fake.notification(ppid(payment)))]

    assert [a.status_code for a in answers] == [200, 200]
    assert await balance_over_http(user) == AMOUNT
    (logged,) = [r for r in caplog.records if r.name == "subsvc.pay_stars" and "paid again" in r.getMessage()]
    assert second in logged.getMessage() and "900000777" in logged.getMessage()


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-Telegram-Bot-Api-Secret-Token": ""},
        {"X-Telegram-Bot-Api-Secret-Token": "forged"},
        {"X-Telegram-Bot-Api-Secret-Token": SECRET.upper()},
        {"X-Telegram-Bot-Api-Secret-Token": SECRET + "x"},
        {"X-Api-Key": SECRET},
    ],
    ids=["none", "empty", "forged", "other-case", "longer", "other-header"],
)
async def test_without_the_secret_an_update_is_refused_401(
    invoice, anon_client, stars_fake: StarsFake, reload, headers
):
    payment = await invoice()
    await stars_fake.pay(ppid(payment))
    body = json.dumps(stars_fake.paid[ppid(payment)])

    response = await anon_client.post(PATH, content=body, headers=headers)

    assert (response.status_code, response.json()) == (
        401,
        {"status": "error", "reason": "invalid_secret_token"},
    )
    assert (await reload(Payment, payment.id)).status == PENDING


@pytest.mark.parametrize(
    ("body", "reason"),
    [(b"not json", "invalid_json"), (b"[]", "invalid_update"), (b'{"message": {}}', "invalid_update_id")],
)
async def test_an_unreadable_body_is_refused_400(deliver, stars_fake: StarsFake, body, reason):
    delivery = stars_fake.update({})
    response = await deliver(Delivery(delivery.path, body, delivery.headers))
    assert (response.status_code, response.json()) == (400, {"status": "error", "reason": reason})


@pytest.mark.parametrize(
    "update",
    [
        {
            "update_id": 1,
            "message": {"message_id": 1, "from": {"id": 5}, "chat": {"id": 5}, "text": "/start"},
        },
        {"update_id": 2, "my_chat_member": {"chat": {"id": 5}}},
    ],
)
async def test_other_updates_are_answered_200_and_change_nothing(
    deliver, stars_fake: StarsFake, rows, update
):
    response = await deliver(stars_fake.update(update))
    assert (response.status_code, response.json()) == (200, {"status": "ok"})
    assert await rows(Payment) == []


async def test_a_payment_we_do_not_know_is_answered_200(invoice, deliver, stars_fake: StarsFake, rows):
    payment = await invoice()
    await stars_fake.pay(ppid(payment))
    update = stars_fake.paid[ppid(payment)]
    update["message"]["successful_payment"]["invoice_payload"] = f"stars-topup:{payment.id + 1000}:250:25000"

    response = await deliver(stars_fake.update(update))

    assert (response.status_code, response.json()) == (200, {"status": "ok", "reason": "unknown_payment"})
    assert [p.status for p in await rows(Payment)] == [PENDING]


@pytest.mark.parametrize(
    ("paid", "recorded", "reason"),
    [
        ({"total_amount": 249}, 24_900, "amount_mismatch: paid 24900 RUB, asked 25000 RUB"),
        ({"total_amount": 251}, 25_100, "amount_mismatch: paid 25100 RUB, asked 25000 RUB"),
        (
            {"currency": "USD", "total_amount": 25_000},
            25_000,
            "amount_mismatch: paid 25000 USD, asked 25000 RUB",
        ),
    ],
)
async def test_other_stars_or_currency_are_refused_not_credited(
    invoice, deliver, stars_fake: StarsFake, reload, user, balance_over_http, paid, recorded, reason
):
    payment = await invoice()
    await stars_fake.pay(ppid(payment))
    update = stars_fake.paid[ppid(payment)]
    doctored = json.loads(json.dumps(update))
    doctored["message"]["successful_payment"].update(paid)

    refused = await deliver(stars_fake.update(doctored))
    genuine = await deliver(stars_fake.notification(ppid(payment)))  # a refusal is final

    assert (refused.status_code, genuine.status_code) == (200, 200)
    after = await reload(Payment, payment.id)
    assert (after.status, after.paid_amount_kopeks, after.failure_reason) == (
        REFUSED_MISMATCH,
        recorded,
        reason,
    )
    assert await balance_over_http(user) == 0


@pytest.mark.stars_env(STARS_ENABLED="false")
async def test_not_configured_answers_503(deliver, stars_fake: StarsFake):
    response = await deliver(stars_fake.update({"update_id": 1}))
    assert (response.status_code, response.json()) == (503, {"status": "error", "reason": "not_configured"})


@pytest.mark.stars_env(STARS_WEBHOOK_PATH="/bot-updates/stars")
async def test_the_path_comes_from_the_settings(invoice, deliver, anon_client, stars_fake: StarsFake, reload):
    payment = await invoice()
    await stars_fake.pay(ppid(payment))
    moved = stars_fake.update(stars_fake.paid[ppid(payment)], path="/bot-updates/stars")

    assert (await anon_client.post(PATH, content=b"{}")).status_code == 404
    assert (await deliver(moved)).status_code == 200
    assert (await reload(Payment, payment.id)).status == SUCCEEDED


# --- pre-checkout ------------------------------------------------------------------------------


async def test_a_pre_checkout_query_of_a_pending_invoice_is_answered_ok(
    invoice, deliver, stars_fake: StarsFake, fake_bot_api: FakeBotAPI
):
    payment = await invoice()
    query_id, delivery = stars_fake.pre_checkout(ppid(payment))

    response = await deliver(delivery)

    assert (response.status_code, response.json()) == (200, {"status": "ok"})
    assert fake_bot_api.pre_checkout_answers[query_id] == {"ok": True, "error_message": None}


async def test_a_pre_checkout_query_of_a_paid_invoice_is_refused(
    invoice, deliver, stars_fake: StarsFake, fake_bot_api: FakeBotAPI
):
    payment = await invoice()
    await stars_fake.pay(ppid(payment))
    assert (await deliver(stars_fake.notification(ppid(payment)))).status_code == 200
    query_id, delivery = stars_fake.pre_checkout(ppid(payment))  # the same link paid again

    response = await deliver(delivery)

    assert response.status_code == 200
    answer = fake_bot_api.pre_checkout_answers[query_id]
    assert answer is not None and answer["ok"] is False and "уже оплачен" in answer["error_message"]


async def test_a_pre_checkout_query_for_other_stars_is_refused(
    invoice, deliver, stars_fake: StarsFake, fake_bot_api: FakeBotAPI
):
    payment = await invoice()
    query_id, delivery = stars_fake.pre_checkout(ppid(payment))
    update = json.loads(delivery.body)
    update["pre_checkout_query"]["total_amount"] = 1

    assert (await deliver(stars_fake.update(update))).status_code == 200
    assert fake_bot_api.pre_checkout_answers[query_id]["ok"] is False  # type: ignore[index]


async def test_a_pre_checkout_query_not_ours_is_left_to_the_bot(deliver, stars_fake: StarsFake, fake_bot_api):
    query = {
        "id": "q-9",
        "from": {"id": 5},
        "currency": "XTR",
        "total_amount": 5,
        "invoice_payload": "wheel_spin_5",
    }
    response = await deliver(stars_fake.update({"update_id": 9, "pre_checkout_query": query}))
    assert response.status_code == 200
    assert fake_bot_api.calls_of("answerPreCheckoutQuery") == []


@pytest.mark.parametrize(
    ("status", "description", "answer"),
    [(502, "Bad Gateway", 502), (400, "Bad Request: QUERY_ID_INVALID", 200)],
    ids=["messenger-down", "already-answered"],
)
async def test_a_pre_checkout_answer_failing(
    invoice, deliver, stars_fake: StarsFake, fake_bot_api: FakeBotAPI, status, description, answer
):
    """The messenger down: 502, so the update is delivered again; the query answered already or
    too old: nothing to do again, 200."""
    payment = await invoice()
    _, delivery = stars_fake.pre_checkout(ppid(payment))
    fake_bot_api.fail("answerPreCheckoutQuery", status, description)

    assert (await deliver(delivery)).status_code == answer


# --- no status API -----------------------------------------------------------------------------


async def test_a_stars_payment_is_not_checkable(invoice, http, reload):
    payment = await invoice()

    check = await http.post(f"/cabinet/balance/pending-payments/messenger_stars/{payment.id}/check")
    listed = await http.get("/cabinet/balance/pending-payments")

    assert check.status_code == 200
    assert (check.json()["success"], check.json()["status_changed"]) == (False, False)
    (item,) = listed.json()["items"]
    assert (item["method"], item["method_display"], item["is_checkable"]) == (
        "messenger_stars",
        "Stars",
        False,
    )
    assert item["payment_url"] == payment.data["payment_url"]
    assert (await reload(Payment, payment.id)).status == PENDING

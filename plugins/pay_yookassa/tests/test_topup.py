"""Top-up through YooKassa, over HTTP against the fake: the method offered while configured,
the payment created as YooKassa takes it (Basic auth, a stable Idempotence-Key, the amount as
"150.00", the receipt to the user's verified e-mail or the default one), and every failure
of the provider answered 502 with YooKassa's reason, the payment left failed — never a 500."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from subsvc_pay_yookassa.settings import YookassaSettings
from subsvc_pay_yookassa.testing import RETURN_URL, SECRET_KEY, SHOP_ID
from subsvc_payments.api import FAILED, PENDING, Payment, ProviderPaymentRequest
from subsvc_payments.testing import topup

from subsvc.services import services

TOPUP = "/cabinet/balance/topup"
BASIC = "Basic " + base64.b64encode(f"{SHOP_ID}:{SECRET_KEY}".encode()).decode()


async def methods(http: Any) -> list[dict[str, Any]]:
    response = await http.get("/cabinet/balance/payment-methods")
    assert response.status_code == 200
    listed: list[dict[str, Any]] = response.json()
    return listed


async def test_the_method_is_offered_by_card_within_its_limits(member):
    [method] = await methods(member)
    assert method["id"] == "yookassa"
    assert (method["min_amount_kopeks"], method["max_amount_kopeks"]) == (5_000, 1_000_000)
    assert [option["id"] for option in method["options"]] == ["card"]


@pytest.mark.yookassa_env(
    YOOKASSA_SBP_ENABLED="true", YOOKASSA_MIN_AMOUNT_KOPEKS="10000", YOOKASSA_MAX_AMOUNT_KOPEKS="50000"
)
async def test_sbp_is_an_option_when_enabled_and_the_limits_follow_the_settings(member):
    [method] = await methods(member)
    assert [option["id"] for option in method["options"]] == ["card", "sbp"]
    assert (method["min_amount_kopeks"], method["max_amount_kopeks"]) == (10_000, 50_000)
    low = await member.post(TOPUP, json={"amount_kopeks": 9_999, "payment_method": "yookassa"})
    assert (low.status_code, low.json()["detail"]) == (400, "Minimum amount is 100.00 RUB")
    high = await member.post(TOPUP, json={"amount_kopeks": 50_001, "payment_method": "yookassa"})
    assert (high.status_code, high.json()["detail"]) == (400, "Maximum amount is 500.00 RUB")


@pytest.mark.yookassa_env(YOOKASSA_SECRET_KEY="")
async def test_without_both_credentials_nothing_is_offered(member):
    assert await methods(member) == []
    refused = await member.post(TOPUP, json={"amount_kopeks": 10_000, "payment_method": "yookassa"})
    assert (refused.status_code, refused.json()["detail"]) == (400, "Invalid or unavailable payment method")


async def test_a_card_top_up_is_created_at_yookassa(insert_user, cabinet, fake_yookassa, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        answer = await topup(http, "yookassa", 25_050, "card")
    [payment] = await rows(Payment)
    [(method, path, headers, body)] = fake_yookassa.requests
    assert (method, path, headers["authorization"]) == ("POST", "/v3/payments", BASIC)
    assert headers["idempotence-key"] == f"subsvc-payment-{payment.id}"
    assert body == {
        "amount": {"value": "250.50", "currency": "RUB"},
        "capture": True,
        "confirmation": {"type": "redirect", "return_url": f"{RETURN_URL}?method=yookassa"},
        "description": "Пополнение баланса на 250.50 ₽",
        "metadata": {"payment_id": str(payment.id), "user_id": str(user.id)},
        "payment_method_data": {"type": "bank_card"},
    }
    created = fake_yookassa.payments[payment.provider_payment_id]
    assert answer["payment_url"] == created["confirmation"]["confirmation_url"]
    assert (answer["status"], answer["amount_kopeks"]) == ("pending", 25_050)
    assert (payment.provider, payment.method, payment.status) == ("yookassa", "card", PENDING)


@pytest.mark.yookassa_env(YOOKASSA_SBP_ENABLED="true", YOOKASSA_RECURRENT_ENABLED="true")
async def test_sbp_asks_sbp_and_only_a_card_is_asked_to_be_saved(insert_user, cabinet, fake_yookassa, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        await topup(http, "yookassa", 10_000, "sbp")
        await topup(http, "yookassa", 10_000)
    sbp, card = (body for *_, body in fake_yookassa.requests)
    assert (sbp["payment_method_data"], "save_payment_method" in sbp) == ({"type": "sbp"}, False)
    assert (card["payment_method_data"], card["save_payment_method"]) == ({"type": "bank_card"}, True)
    assert sorted(p.method for p in await rows(Payment)) == ["sbp", "yookassa"]  # no option: the method


@pytest.mark.parametrize(
    ("user_fields", "default", "receipt_to"),
    [
        ({"email": "ann@example.com", "email_verified": True}, "", "ann@example.com"),
        ({"email": "ann@example.com", "email_verified": True}, "shop@example.com", "ann@example.com"),
        (
            {"email": "unverified@example.com", "email_verified": False},
            "shop@example.com",
            "shop@example.com",
        ),
        ({}, "shop@example.com", "shop@example.com"),
        ({"email": "unverified@example.com", "email_verified": False}, "", None),
    ],
)
async def test_the_receipt_goes_to_the_verified_email_else_the_default(
    insert_user, cabinet, fake_yookassa, change_settings, user_fields, default, receipt_to
):
    change_settings(YookassaSettings, YOOKASSA_DEFAULT_RECEIPT_EMAIL=default or None)
    user = await insert_user(**user_fields)
    async with cabinet(user.id) as http:
        await topup(http, "yookassa", 10_000)
    [(*_, body)] = fake_yookassa.requests
    if receipt_to is None:
        assert "receipt" not in body
    else:
        assert body["receipt"]["customer"] == {"email": receipt_to}
        assert body["receipt"]["items"][0]["amount"] == {"value": "100.00", "currency": "RUB"}


async def test_the_same_idempotence_key_makes_one_payment_at_yookassa(app, insert_user, fake_yookassa):
    user = await insert_user()
    provider = await services(app).plugins.first_result("payments_provider", app=app, method="yookassa")
    asked = ProviderPaymentRequest(
        7, user.id, "yookassa", None, 10_000, "RUB", "Пополнение", RETURN_URL, "subsvc-payment-7"
    )
    first, again = await provider.create(asked), await provider.create(asked)
    assert first.provider_payment_id == again.provider_payment_id
    assert len(fake_yookassa.payments) == 1
    assert [headers["idempotence-key"] for _, _, headers, _ in fake_yookassa.requests] == [
        "subsvc-payment-7"
    ] * 2


async def break_credentials(fake: Any) -> None:
    fake.secret_key = "another-key"


async def break_server(fake: Any) -> None:
    fake.fail_with(500)


async def stop(fake: Any) -> None:
    await fake.down()


async def require_receipt(fake: Any) -> None:
    fake.receipt_required = True


@pytest.mark.parametrize(
    ("break_it", "reason"),
    [
        (break_credentials, "401 invalid_credentials: Error in shopId or secret key"),
        (require_receipt, "400 invalid_request: Receipt is missing or illegal (parameter receipt)"),
        (break_server, "answered 500"),
        (stop, "unreachable"),
    ],
    ids=["wrong credentials", "receipt required", "yookassa failing", "yookassa down"],
)
async def test_a_provider_failure_answers_502_and_leaves_the_payment_failed(
    insert_user, cabinet, fake_yookassa, rows, break_it, reason
):
    await break_it(fake_yookassa)
    user = await insert_user()
    async with cabinet(user.id) as http:
        answer = await http.post(TOPUP, json={"amount_kopeks": 10_000, "payment_method": "yookassa"})
    assert answer.status_code == 502
    assert reason in answer.json()["detail"]
    [payment] = await rows(Payment)
    assert payment.status == FAILED
    assert reason in (payment.failure_reason or "")


@pytest.mark.yookassa_env(PAYMENTS_RETURN_URL="")
async def test_without_a_return_url_yookassa_refuses_the_redirect_and_says_why(insert_user, cabinet, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        answer = await http.post(TOPUP, json={"amount_kopeks": 10_000, "payment_method": "yookassa"})
    assert answer.status_code == 502
    assert "(parameter confirmation.return_url)" in answer.json()["detail"]
    assert [p.status for p in await rows(Payment)] == [FAILED]

"""CryptoBot's notifications at /webhooks/payments/cryptobot: a signed invoice_paid update
credits the invoice's fiat amount once, keeping what was paid for it; an update without a
signature, forged, stale or unreadable is refused and changes nothing; other updates and
unknown invoices are acknowledged; 503 while unconfigured; the path follows its setting."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest
from subsvc_pay_cryptobot.provider import SIGNATURE_HEADER, signature
from subsvc_payments.api import PENDING, REFUSED_MISMATCH, SUCCEEDED, Payment

URL = "/webhooks/payments/cryptobot"


async def _deliver(http, body: bytes, headers: dict[str, str], url: str = URL):
    return await http.post(url, content=body, headers=headers)


def _signed(fake, update: object) -> tuple[bytes, dict[str, str]]:
    """Any body, signed as Crypto Pay signs (to reach the checks after the signature)."""
    body = update if isinstance(update, bytes) else json.dumps(update).encode()
    return body, {SIGNATURE_HEADER: signature(fake.token, body), "Content-Type": "application/json"}


async def test_a_paid_update_credits_the_invoice_amount_once_and_keeps_the_conversion(
    top_up, cryptobot_env, anon_client, rows, balance_over_http, transactions_over_http
):
    paid = await top_up(25_000)
    cryptobot_env.pay(paid.invoice_id, asset="TON")
    body, headers = cryptobot_env.update(paid.invoice_id)
    answers = await asyncio.gather(*(_deliver(anon_client, body, headers) for _ in range(3)))
    assert [(a.status_code, a.json()) for a in answers] == [(200, {"status": "ok"})] * 3
    assert await balance_over_http(paid.user) == 25_000
    [deposit] = await transactions_over_http(paid.user)
    assert (deposit["amount_kopeks"], deposit["payment_method"], deposit["external_id"]) == (
        25_000,
        "cryptobot",
        str(paid.invoice_id),
    )
    [payment] = await rows(Payment)
    assert (payment.status, payment.amount_kopeks, payment.paid_amount_kopeks, payment.currency) == (
        SUCCEEDED,
        25_000,
        25_000,
        "RUB",
    )
    invoice = payment.data["paid_notification"]
    assert (invoice["amount"], invoice["fiat"], invoice["paid_asset"], invoice["paid_fiat_rate"]) == (
        "250.00",
        "RUB",
        "TON",
        "520.00",
    )
    assert invoice["paid_amount"] == "0.48076924"  # 250 / 520, as Crypto Pay reported it


@pytest.mark.parametrize(
    ("forge", "status", "reason"),
    [
        (lambda body, headers: (body, {}), 401, "missing_signature"),
        (lambda body, headers: (body, {SIGNATURE_HEADER: " "}), 401, "missing_signature"),
        (lambda body, headers: (body, {SIGNATURE_HEADER: "0" * 64}), 401, "invalid_signature"),
        (
            lambda body, headers: (body, {SIGNATURE_HEADER: signature("9:other", body)}),
            401,
            "invalid_signature",
        ),
        (lambda body, headers: (body.replace(b"250.00", b"2500.00"), headers), 401, "invalid_signature"),
        (lambda body, headers: (body, {SIGNATURE_HEADER: "é".encode() * 32}), 401, "invalid_signature"),
    ],
    ids=["no-header", "blank", "zeros", "other-token", "body-changed", "not-ascii"],
)
async def test_an_update_not_signed_with_our_token_is_refused(
    forge, status, reason, top_up, cryptobot_env, anon_client, rows, balance_over_http
):
    paid = await top_up(25_000)
    cryptobot_env.pay(paid.invoice_id)
    body, headers = forge(*cryptobot_env.update(paid.invoice_id))
    answer = await _deliver(anon_client, body, headers)
    assert (answer.status_code, answer.json()) == (status, {"status": "error", "reason": reason})
    assert await balance_over_http(paid.user) == 0
    assert [p.status for p in await rows(Payment)] == [PENDING]


async def test_the_signature_may_be_upper_case_hex(top_up, cryptobot_env, anon_client, balance_over_http):
    paid = await top_up(25_000)
    cryptobot_env.pay(paid.invoice_id)
    body, headers = cryptobot_env.update(paid.invoice_id)
    answer = await _deliver(anon_client, body, {SIGNATURE_HEADER: headers[SIGNATURE_HEADER].upper()})
    assert answer.status_code == 200, answer.text
    assert await balance_over_http(paid.user) == 25_000


@pytest.mark.parametrize("age", [timedelta(minutes=11), -timedelta(minutes=11)], ids=["old", "future"])
async def test_a_replay_outside_the_window_is_refused(
    age, top_up, cryptobot_env, anon_client, rows, balance_over_http
):
    """Within CRYPTOBOT_NOTIFICATION_MAX_AGE_SECONDS (600 s) a repeated update is applied (once);
    a captured one sent again later, or dated ahead, is refused."""
    paid = await top_up(25_000)
    cryptobot_env.pay(paid.invoice_id)
    body, headers = cryptobot_env.update(paid.invoice_id, sent_at=datetime.now(UTC) - age)
    answer = await _deliver(anon_client, body, headers)
    assert (answer.status_code, answer.json()) == (401, {"status": "error", "reason": "stale_notification"})
    assert await balance_over_http(paid.user) == 0
    assert [p.status for p in await rows(Payment)] == [PENDING]


@pytest.mark.cryptobot_env(CRYPTOBOT_NOTIFICATION_MAX_AGE_SECONDS="60")
async def test_the_replay_window_follows_its_setting(top_up, cryptobot_env, anon_client):
    paid = await top_up(25_000)
    cryptobot_env.pay(paid.invoice_id)
    late = await _deliver(
        anon_client, *cryptobot_env.update(paid.invoice_id, sent_at=datetime.now(UTC) - timedelta(seconds=90))
    )
    assert late.status_code == 401, late.text
    on_time = await _deliver(
        anon_client, *cryptobot_env.update(paid.invoice_id, sent_at=datetime.now(UTC) - timedelta(seconds=30))
    )
    assert on_time.status_code == 200, on_time.text


def _now() -> str:
    return datetime.now(UTC).isoformat()


@pytest.mark.parametrize(
    ("update", "reason"),
    [
        (b"not json", "invalid_json"),
        ([1, 2], "invalid_update"),
        ({"update_id": 1, "request_date": "now"}, "invalid_update"),
        ({"update_id": 1, "update_type": "invoice_paid", "payload": {}}, "invalid_update"),
        ({"update_id": 1, "update_type": "invoice_paid", "request_date": "yesterday"}, "invalid_update"),
        ("paid-without-id", "invalid_update"),
        ("paid-fraction-of-kopek", "invalid_update"),
    ],
)
async def test_a_signed_body_that_is_no_update_is_400(
    update, reason, top_up, cryptobot_env, anon_client, rows, balance_over_http
):
    paid = await top_up(25_000)
    invoice = cryptobot_env.pay(paid.invoice_id)
    if update == "paid-without-id":
        update = {
            "update_type": "invoice_paid",
            "request_date": _now(),
            "payload": {**invoice, "invoice_id": None},
        }
    elif update == "paid-fraction-of-kopek":
        update = {
            "update_type": "invoice_paid",
            "request_date": _now(),
            "payload": {**invoice, "amount": "250.001"},
        }
    answer = await _deliver(anon_client, *_signed(cryptobot_env, update))
    assert (answer.status_code, answer.json()) == (400, {"status": "error", "reason": reason})
    assert await balance_over_http(paid.user) == 0
    assert [p.status for p in await rows(Payment)] == [PENDING]


async def test_other_updates_and_unknown_invoices_are_acknowledged(
    top_up, cryptobot_env, anon_client, rows, caplog
):
    paid = await top_up(25_000)
    cryptobot_env.pay(paid.invoice_id)
    other = await _deliver(
        anon_client, *cryptobot_env.update(paid.invoice_id, update_type="invoice_refunded")
    )
    assert (other.status_code, other.json()) == (200, {"status": "ok"})
    assert [p.status for p in await rows(Payment)] == [PENDING]
    foreign = cryptobot_env.invoices[paid.invoice_id] | {"invoice_id": 999_999}
    update = {"update_id": 7, "update_type": "invoice_paid", "request_date": _now(), "payload": foreign}
    unknown = await _deliver(anon_client, *_signed(cryptobot_env, update))
    assert (unknown.status_code, unknown.json()) == (200, {"status": "ok", "reason": "unknown_payment"})
    assert "unknown payment 999999" in caplog.text
    assert [p.status for p in await rows(Payment)] == [PENDING]


async def test_an_invoice_reported_in_crypto_is_not_converted_but_refused(
    top_up, cryptobot_env, anon_client, rows, balance_over_http
):
    """Should Crypto Pay report one of our invoices in an asset, nothing converts it back to
    rubles (the reference's defect): the currency differs from the one asked, it is refused."""
    paid = await top_up(25_000)
    cryptobot_env.invoices[paid.invoice_id] |= {"currency_type": "crypto", "asset": "USDT", "amount": "2.62"}
    cryptobot_env.pay(paid.invoice_id)
    answer = await _deliver(anon_client, *cryptobot_env.update(paid.invoice_id))
    assert answer.status_code == 200, answer.text
    [payment] = await rows(Payment)
    assert (payment.status, payment.paid_amount_kopeks) == (REFUSED_MISMATCH, 262)
    assert payment.failure_reason == "amount_mismatch: paid 262 USDT, asked 25000 RUB"
    assert await balance_over_http(paid.user) == 0


@pytest.mark.cryptobot_env(CRYPTOBOT_API_TOKEN="")
async def test_unconfigured_it_answers_503_so_crypto_pay_retries(cryptobot_env, anon_client):
    update = {"update_id": 1, "update_type": "invoice_paid", "request_date": _now(), "payload": {}}
    answer = await _deliver(anon_client, *_signed(cryptobot_env, update))
    assert (answer.status_code, answer.json()) == (503, {"status": "error", "reason": "not_configured"})
    health = (await anon_client.get("/health/unified")).json()["payment_webhooks"]
    assert health == {"cryptobot": {"configured": False, "path": URL}}


@pytest.mark.cryptobot_env(CRYPTOBOT_WEBHOOK_PATH="/cryptobot-webhook")
async def test_the_path_follows_its_setting(top_up, cryptobot_env, anon_client, balance_over_http):
    paid = await top_up(25_000)
    cryptobot_env.pay(paid.invoice_id)
    body, headers = cryptobot_env.update(paid.invoice_id)
    assert (await _deliver(anon_client, body, headers)).status_code == 404
    assert (await _deliver(anon_client, body, headers, "/cryptobot-webhook")).status_code == 200
    assert await balance_over_http(paid.user) == 25_000
    health = (await anon_client.get("/health/unified")).json()["payment_webhooks"]
    assert health == {"cryptobot": {"configured": True, "path": "/cryptobot-webhook"}}

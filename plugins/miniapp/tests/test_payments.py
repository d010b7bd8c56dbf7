"""The mini app's top-up against Platega's loopback fake: the methods the cabinet offers, a
payment created (idempotently with a key) and its status, only the user's own."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["miniapp", "pay_platega"]


@pytest.fixture
def subsvc_settings_overrides(platega_env: dict[str, str]) -> dict[str, Any]:
    return {"BOT_TOKEN": "424242:miniapp-test-bot-token"}


async def test_the_methods_are_the_cabinets(miniapp, make_user):
    me = await make_user()
    answer = await miniapp("/payments/methods", me)
    assert answer.status_code == 200
    (platega,) = answer.json()["methods"]
    assert platega["id"] == "platega" and platega["name"] == "Platega"
    assert platega["integration_type"] == "redirect" and platega["requires_amount"] is True
    assert platega["min_amount_kopeks"] > 0 and platega["options"][0]["id"]


async def test_a_payment_is_created_and_its_status_read(miniapp, make_user, fake_platega):
    me = await make_user()
    created = await miniapp("/payments/create", me, method="platega", amountRubles=150.005)
    assert created.status_code == 200, created.text
    payment = created.json()
    assert payment["amount_kopeks"] == 15001  # rubles rounded half up
    assert payment["payment_url"] and payment["method"] == "platega"
    local_id = payment["extra"]["local_payment_id"]
    status = await miniapp(
        "/payments/status",
        me,
        payments=[
            {"method": "platega", "localPaymentId": local_id},
            {"method": "platega", "paymentId": "nope"},
        ],
    )
    first, unknown = status.json()["results"]
    assert (first["status"], first["is_paid"], first["amount_kopeks"]) == ("pending", False, 15001)
    assert first["external_id"] in fake_platega.transactions
    assert (unknown["status"], unknown["is_paid"]) == ("unknown", False)
    stranger = await make_user()
    theirs = await miniapp(
        "/payments/status", stranger, payments=[{"method": "platega", "localPaymentId": local_id}]
    )
    assert theirs.json()["results"][0]["status"] == "unknown"


async def test_kopeks_win_and_a_key_makes_one_payment(make_user, anon_client, signed):
    me = await make_user()
    body = {
        "initData": signed(me.messenger_id),
        "method": "platega",
        "amountKopeks": 20000,
        "amountRubles": 1,
    }
    first = await anon_client.post("/miniapp/payments/create", json=body, headers={"Idempotency-Key": "k1"})
    again = await anon_client.post("/miniapp/payments/create", json=body, headers={"Idempotency-Key": "k1"})
    assert first.json()["amount_kopeks"] == 20000
    assert again.json()["extra"]["payment_id"] == first.json()["extra"]["payment_id"]


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        ({"method": " ", "amountKopeks": 20000}, "Payment method is required"),
        ({"method": "platega"}, "Amount must be positive"),
        ({"method": "platega", "amountKopeks": -5}, "Amount must be positive"),
        ({"method": "platega", "amountKopeks": 500}, "Amount is below minimum"),
        ({"method": "platega", "amountKopeks": 3_000_000_000}, "Amount exceeds maximum"),
        ({"method": "nopay", "amountKopeks": 20000}, "Invalid or unavailable payment method"),
    ],
)
async def test_refusals_change_nothing(miniapp, make_user, fake_platega, fields, text):
    me = await make_user()
    answer = await miniapp("/payments/create", me, **fields)
    assert (answer.status_code, answer.json()) == (400, {"detail": text})
    assert fake_platega.transactions == {}


async def test_an_unknown_user_is_404_and_a_blocked_one_403(miniapp, make_user, signed):
    unknown = await miniapp("/payments/methods", signed(987654321))
    assert (unknown.status_code, unknown.json()) == (404, {"detail": "User not found"})
    blocked = await make_user(status="blocked")
    refused = await miniapp("/payments/methods", blocked)
    assert (refused.status_code, refused.json()) == (403, {"detail": "Account is blocked or deleted"})

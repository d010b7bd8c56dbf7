"""The protocol's mapping without HTTP: Apple's transaction payload read, the x5c chain
checks, the account token, the differences a reconciliation reports."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from subsvc_pay_apple_iap.admin import differences
from subsvc_pay_apple_iap.client import read_transaction
from subsvc_pay_apple_iap.jws import UntrustedSignature, trusted_root, verify
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_pay_apple_iap.settings import AppleIapSettings
from subsvc_pay_apple_iap.testing import TestPki
from subsvc_pay_apple_iap.tokens import account_token, same_token

PAYLOAD = {
    "transactionId": "2000000000000009",
    "originalTransactionId": "2000000000000001",
    "bundleId": "com.example.vpn",
    "productId": "p.100",
    "type": "Consumable",
    "appAccountToken": "6f9619ff-8b86-d011-b42d-00c04fc964ff",
    "price": 199_000,
    "currency": "USD",
    "environment": "Production",
    "purchaseDate": 1_700_000_000_000,
}


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        ({}, "price", 199_000),
        ({}, "purchased_at", datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
        ({}, "revoked_at", None),
        ({"revocationDate": 1_700_000_500_000, "revocationReason": 1}, "revocation_reason", 1),
        ({"originalTransactionId": None}, "original_transaction_id", "2000000000000009"),
        ({"appAccountToken": None}, "app_account_token", None),
        ({"price": "199"}, "price", None),
        ({"price": True}, "price", None),
        ({"transactionId": 2000000000000009}, "transaction_id", "2000000000000009"),
    ],
)
def test_a_transaction_payload_is_read(change, field, expected):
    payload = {k: v for k, v in {**PAYLOAD, **change}.items() if v is not None}
    assert getattr(read_transaction(payload), field) == expected


@pytest.mark.parametrize("missing", ["transactionId", "bundleId", "productId"])
def test_a_payload_without_its_identity_is_untrusted(missing):
    with pytest.raises(UntrustedSignature):
        read_transaction({k: v for k, v in PAYLOAD.items() if k != missing})


@pytest.fixture(scope="module")
def pki() -> TestPki:
    return TestPki()


def _reheader(token: str, **header) -> str:
    _head, body, signature = token.split(".")
    encoded = base64.urlsafe_b64encode(json.dumps({**jwt.get_unverified_header(token), **header}).encode())
    return ".".join([encoded.decode().rstrip("="), body, signature])


def test_a_genuine_jws_is_read(pki):
    assert verify(pki.sign(PAYLOAD), pki.root, datetime.now(UTC)) == PAYLOAD


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: TestPki("Other Root").sign(PAYLOAD), "does not end at the trusted root"),
        (lambda p: TestPki(markers=False).sign(PAYLOAD), None),
        (lambda p: _reheader(p.sign(PAYLOAD), x5c=None), "not a chain of three"),
        (lambda p: _reheader(p.sign(PAYLOAD), x5c=["AAAA", "AAAA", "AAAA"]), "unreadable certificate"),
        (lambda p: _reheader(p.sign(PAYLOAD), alg="HS256"), "not ES256"),
        (lambda p: p.sign(PAYLOAD)[:-8] + "AAAAAAAA", "signature does not hold"),
        (lambda p: "not a token", "not a JWS"),
    ],
    ids=["other-root", "no-markers", "no-x5c", "bad-x5c", "hs256", "bad-signature", "garbage"],
)
def test_untrusted_jws_are_refused(pki, make, message):
    root = pki.root
    token = make(pki)
    if message is None:  # its own root trusted: refused for the missing markers alone
        root = trusted_root(None)
    with pytest.raises(UntrustedSignature, match=message or "does not end"):
        verify(token, root, datetime.now(UTC))


def test_markers_are_required_even_under_a_trusted_root():
    unmarked = TestPki(markers=False)
    with pytest.raises(UntrustedSignature, match="not one Apple signs App Store data with"):
        verify(unmarked.sign(PAYLOAD), unmarked.root, datetime.now(UTC))


def test_an_expired_chain_is_refused(pki):
    with pytest.raises(UntrustedSignature, match="not valid now"):
        verify(pki.sign(PAYLOAD), pki.root, datetime.now(UTC) + timedelta(days=400))


def test_apples_root_is_built_in():
    root = trusted_root(None)
    assert root.subject.rfc4514_string().endswith("CN=Apple Root CA - G3")


def _settings(**values) -> AppleIapSettings:
    return AppleIapSettings(_env_file=None, APPLE_IAP_BUNDLE_ID="com.example.vpn", **values)


def test_account_tokens_differ_per_user_and_per_secret():
    one, other = _settings(APPLE_IAP_ACCOUNT_TOKEN_SECRET="a"), _settings(APPLE_IAP_ACCOUNT_TOKEN_SECRET="b")
    assert account_token(one, 1) == account_token(one, 1) != account_token(one, 2)
    assert account_token(one, 1) != account_token(other, 1)
    assert same_token(account_token(one, 1).upper(), account_token(one, 1))
    assert not same_token("not-a-uuid", account_token(one, 1)) and not same_token(None, account_token(one, 1))


@pytest.mark.parametrize(
    ("change", "status", "found"),
    [
        ({}, "credited", []),
        ({"revocationDate": 1_700_000_500_000}, "credited", ["revoked at Apple"]),
        ({}, "revoked", ["no longer revoked at Apple"]),
        ({"productId": "p.500"}, "credited", ["product: ours p.100, Apple's p.500"]),
        ({"bundleId": "com.other"}, "credited", ["bundle: ours com.example.vpn, Apple's com.other"]),
        (
            {"appAccountToken": "00000000-0000-0000-0000-000000000000"},
            "credited",
            ["appAccountToken of another account"],
        ),
    ],
)
def test_reconciliation_differences(change, status, found):
    settings = _settings(APPLE_IAP_ACCOUNT_TOKEN_SECRET="s")
    payload = {**PAYLOAD, "appAccountToken": account_token(settings, 7), **change}
    ids = {
        "transaction_id": PAYLOAD["transactionId"],
        "original_transaction_id": PAYLOAD["originalTransactionId"],
    }
    row = AppleIapTransaction(
        payment_id=1, user_id=7, product_id="p.100", amount_kopeks=10_000, status=status, **ids
    )
    assert differences(row, read_transaction(payload), settings) == found
    assert differences(row, None, settings) == ["missing at Apple"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"APPLE_IAP_PRIVATE_KEY": "not a key"}, "not a PEM private key"),
        ({"APPLE_IAP_ROOT_CERTIFICATE": "not a cert"}, "not a PEM certificate"),
        ({"APPLE_IAP_PRODUCTS": {"p": 0}}, "a product credits a positive number of kopeks: p"),
    ],
)
def test_bad_settings_stop_the_start(values, message):
    with pytest.raises(ValueError, match=message):
        _settings(**values)


def test_configured_once_the_key_and_bundle_are_set():
    assert not _settings().configured

"""Run pay_overpay (and what it requires); ``overpay`` configures it with its certificate file
in the test's folder; ``make_certificate`` builds client certificates to upload."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    pkcs12,
)
from cryptography.x509.oid import NameOID
from subsvc_pay_overpay.settings import OverpaySettings

CONFIGURED = {"OVERPAY_USERNAME": "merchant", "OVERPAY_PASSWORD": "secret", "OVERPAY_PROJECT_ID": "42"}


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["pay_overpay"]


@pytest.fixture
def overpay(change_settings: Callable[..., None], tmp_path: Path) -> Callable[..., Path]:
    """``overpay()``: Overpay configured, its file at ``tmp_path/certs/client.p12`` (the path
    answered); ``overpay(OVERPAY_P12_PASSPHRASE="x")`` with more settings."""

    def configure(**settings: Any) -> Path:
        path = tmp_path / "certs" / "client.p12"
        change_settings(OverpaySettings, **{**CONFIGURED, "OVERPAY_P12_PATH": str(path), **settings})
        return path

    return configure


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _issued(subject: str, key: Any, issuer: str, issuer_key: Any, days: int, ca: bool) -> x509.Certificate:
    now = datetime.now(UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=2))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .sign(issuer_key, hashes.SHA256())
    )


@pytest.fixture
def make_certificate() -> Callable[..., bytes]:
    """``make_certificate(kind="p12"|"pem", passphrase="", days=365, chain=False,
    with_key=True, foreign_key=False)``: a client certificate file ``CN=overpay-test``."""

    def make(
        kind: str = "p12",
        passphrase: str = "",
        days: int = 365,
        chain: bool = False,
        with_key: bool = True,
        foreign_key: bool = False,
    ) -> bytes:
        ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
        ca = _issued("overpay-test-ca", ca_key, "overpay-test-ca", ca_key, 3650, ca=True)
        certificate = _issued("overpay-test", key, "overpay-test-ca", ca_key, days, ca=False)
        cas = [ca] if chain else None
        held_key = ec.generate_private_key(ec.SECP256R1()) if foreign_key else key
        encryption = BestAvailableEncryption(passphrase.encode()) if passphrase else NoEncryption()
        if kind == "p12":
            return pkcs12.serialize_key_and_certificates(
                b"client", held_key if with_key else None, certificate, cas, encryption
            )
        pem = certificate.public_bytes(Encoding.PEM) + b"".join(
            c.public_bytes(Encoding.PEM) for c in cas or []
        )
        if with_key:
            pem += held_key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, encryption)
        return pem

    return make

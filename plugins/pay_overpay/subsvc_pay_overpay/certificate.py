"""Reading an uploaded client certificate (no HTTP, no database): a PKCS#12 file, or PEM
holding the certificate and its private key; written back as PKCS#12 for the client."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import PublicKeyTypes
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PublicFormat,
    load_pem_private_key,
    pkcs12,
)

from subsvc.api.refusal import Refusal
from subsvc.db import utcnow

EXPIRY_WARNING_DAYS = 30
NAME = b"overpay-client"
NO_KEY = "The file holds no private key: the client certificate needs its key"
PrivateKey = (
    rsa.RSAPrivateKey
    | ec.EllipticCurvePrivateKey
    | dsa.DSAPrivateKey
    | ed25519.Ed25519PrivateKey
    | ed448.Ed448PrivateKey
)


class CertificateRefused(Refusal):
    """An upload that is not a usable client certificate (answered 400 with why)."""

    def __init__(self, detail: str) -> None:
        super().__init__(400, detail)


@dataclass(frozen=True)
class ClientCertificate:
    """A client certificate with its private key and the chain that came with it."""

    key: PrivateKey
    certificate: x509.Certificate
    chain: tuple[x509.Certificate, ...]

    @property
    def subject(self) -> str:
        return self.certificate.subject.rfc4514_string()

    @property
    def not_valid_after(self) -> datetime:
        return self.certificate.not_valid_after_utc

    @property
    def has_chain(self) -> bool:
        return bool(self.chain)

    def warning(self, now: datetime | None = None) -> str | None:
        """What an administrator should know before relying on it: it is not valid yet, or
        expires within :data:`EXPIRY_WARNING_DAYS` days."""
        now = now or utcnow()
        if self.certificate.not_valid_before_utc > now:
            return f"The certificate is not valid before {self.certificate.not_valid_before_utc.isoformat()}"
        left = self.not_valid_after - now
        if left < timedelta(days=EXPIRY_WARNING_DAYS):
            return f"The certificate expires in {left.days} days ({self.not_valid_after.isoformat()})"
        return None

    def pkcs12(self, passphrase: str | None) -> bytes:
        """The certificate, its key and chain as a PKCS#12 file, encrypted with ``passphrase``."""
        encryption = BestAvailableEncryption(passphrase.encode()) if passphrase else NoEncryption()
        return pkcs12.serialize_key_and_certificates(
            NAME, self.key, self.certificate, list(self.chain) or None, encryption
        )


def read_certificate(data: bytes, passphrase: str | None) -> ClientCertificate:
    """The client certificate in ``data`` (PKCS#12, or PEM with its key), opened with
    ``passphrase``; raises :class:`CertificateRefused` with the reason otherwise, and for a
    certificate that has expired."""
    if not data.strip():
        raise CertificateRefused("The file is empty")
    found = _pem(data, passphrase) if data.lstrip().startswith(b"-----BEGIN") else _pkcs12(data, passphrase)
    if found.not_valid_after <= utcnow():
        raise CertificateRefused(f"The certificate expired on {found.not_valid_after.isoformat()}")
    return found


def _pkcs12(data: bytes, passphrase: str | None) -> ClientCertificate:
    try:
        key, certificate, chain = pkcs12.load_key_and_certificates(
            data, passphrase.encode() if passphrase else None
        )
    except ValueError:
        raise CertificateRefused(
            "Not a PKCS#12 file, or the passphrase does not open it (a PEM file starts with -----BEGIN)"
        ) from None
    if key is None:
        raise CertificateRefused(NO_KEY)
    if certificate is None:
        raise CertificateRefused("The PKCS#12 file holds no certificate of its private key")
    return _checked(key, certificate, tuple(chain))


def _pem(data: bytes, passphrase: str | None) -> ClientCertificate:
    try:
        certificates = x509.load_pem_x509_certificates(data)
    except ValueError:
        raise CertificateRefused("The PEM file holds no readable certificate") from None
    if b"PRIVATE KEY-----" not in data:
        raise CertificateRefused("The PEM file holds no private key: the client certificate needs its key")
    try:
        key = load_pem_private_key(data, passphrase.encode() if passphrase else None)
    except (TypeError, ValueError):
        raise CertificateRefused("The PEM private key cannot be read with this passphrase") from None
    return _checked(key, certificates[0], tuple(certificates[1:]))


def _checked(
    key: object, certificate: x509.Certificate, chain: tuple[x509.Certificate, ...]
) -> ClientCertificate:
    if not isinstance(key, PrivateKey):
        raise CertificateRefused("The private key is of a kind a client certificate cannot use")
    if _public(key.public_key()) != _public(certificate.public_key()):
        raise CertificateRefused("The private key does not belong to the certificate")
    return ClientCertificate(key, certificate, chain)


def _public(key: PublicKeyTypes) -> bytes:
    return key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)

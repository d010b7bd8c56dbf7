"""Apple's signed data (JWS, ES256): the certificate chain in its ``x5c`` header is checked up
to the trusted root (each link's signature and validity, the intermediate a CA, Apple's
marker extensions on the leaf and the intermediate), then the signature with the leaf's key.
No network: a revoked Apple certificate is not detected (no OCSP)."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

import jwt
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding

APPLE_ROOT_CA_G3 = """-----BEGIN CERTIFICATE-----
MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwS
QXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9u
IEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN
MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBS
b290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9y
aXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49
AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtf
TjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517
IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr
MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gA
MGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4
at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM
6BgD56KyKA==
-----END CERTIFICATE-----
"""
"""Apple Root CA - G3 (apple.com/certificateauthority; SHA-256 fingerprint 63:34:3A:BF:...:91:79)."""

LEAF_MARKER = x509.ObjectIdentifier("1.2.840.113635.100.6.11.1")
"""The extension Apple puts on the certificates that sign App Store data."""
INTERMEDIATE_MARKER = x509.ObjectIdentifier("1.2.840.113635.100.6.2.1")
"""The extension of Apple's Worldwide Developer Relations intermediate."""
_DER = Encoding.DER


class UntrustedSignature(Exception):
    """Signed data that is not Apple's (or not readable as such): why, in the message."""


def trusted_root(pem: str | None) -> x509.Certificate:
    """The root to trust: the PEM given, else Apple Root CA - G3."""
    return x509.load_pem_x509_certificate((pem or APPLE_ROOT_CA_G3).encode())


def verify(token: str, root: x509.Certificate, now: datetime) -> dict[str, Any]:
    """The payload of ``token`` once its chain and signature hold; :class:`UntrustedSignature`
    otherwise."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.InvalidTokenError as exc:
        raise UntrustedSignature(f"not a JWS ({exc})") from None
    if header.get("alg") != "ES256":
        raise UntrustedSignature(f"signed with {header.get('alg')!r}, not ES256")
    leaf, intermediate, chain_root = _chain(header.get("x5c"))
    if chain_root.public_bytes(_DER) != root.public_bytes(_DER):
        raise UntrustedSignature("its chain does not end at the trusted root")
    _issued(intermediate, root, now, "intermediate")
    _issued(leaf, intermediate, now, "signing certificate")
    if not _is_ca(intermediate):
        raise UntrustedSignature("its intermediate certificate is not a certificate authority")
    markers = ((leaf, LEAF_MARKER, "signing"), (intermediate, INTERMEDIATE_MARKER, "intermediate"))
    for certificate, marker, what in markers:
        if not _has(certificate, marker):
            raise UntrustedSignature(f"its {what} certificate is not one Apple signs App Store data with")
    key = leaf.public_key()
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise UntrustedSignature("its signing certificate holds no EC key")
    try:
        payload = jwt.api_jws.decode(token, key=key, algorithms=["ES256"])
        data = json.loads(payload)
    except (jwt.InvalidTokenError, ValueError) as exc:
        raise UntrustedSignature(f"its signature does not hold ({exc})") from None
    if not isinstance(data, dict):
        raise UntrustedSignature("its payload is not a JSON object")
    return data


def _chain(x5c: Any) -> tuple[x509.Certificate, x509.Certificate, x509.Certificate]:
    if not isinstance(x5c, list) or len(x5c) != 3 or not all(isinstance(item, str) for item in x5c):
        raise UntrustedSignature("its x5c header is not a chain of three certificates")
    try:
        leaf, intermediate, root = (x509.load_der_x509_certificate(base64.b64decode(item)) for item in x5c)
    except (ValueError, binascii.Error) as exc:
        raise UntrustedSignature(f"its x5c header holds an unreadable certificate ({exc})") from None
    return leaf, intermediate, root


def _issued(certificate: x509.Certificate, issuer: x509.Certificate, now: datetime, what: str) -> None:
    try:
        certificate.verify_directly_issued_by(issuer)
    except (ValueError, TypeError, InvalidSignature):
        raise UntrustedSignature(f"its {what} is not issued by the certificate above it") from None
    if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
        raise UntrustedSignature(f"its {what} is not valid now")


def _is_ca(certificate: x509.Certificate) -> bool:
    try:
        return bool(certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False


def _has(certificate: x509.Certificate, marker: x509.ObjectIdentifier) -> bool:
    try:
        certificate.extensions.get_extension_for_oid(marker)
    except x509.ExtensionNotFound:
        return False
    return True

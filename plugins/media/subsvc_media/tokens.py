"""Signed download tokens of the cabinet: ``"<exp>.<hex>"``, ``exp`` unix seconds, ``hex`` the
HMAC-SHA256 (keyed with the cabinet JWT secret) of ``"<file_id>.<exp>"``. Not bound to a user:
whoever holds the token may fetch that one file until it expires."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta

from starlette.applications import Starlette

from subsvc.db.types import utcnow
from subsvc.services import services

TOKEN_LIFETIME = timedelta(hours=24)


def _signature(secret: str, file_id: str, exp: int) -> str:
    message = f"{file_id}.{exp}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def sign(app: Starlette, file_id: str, *, now: datetime | None = None) -> str:
    """A token for ``file_id`` valid :data:`TOKEN_LIFETIME` from ``now``."""
    exp = int(((now or utcnow()) + TOKEN_LIFETIME).timestamp())
    return f"{exp}.{_signature(services(app).jwt.secret, file_id, exp)}"


def verify(app: Starlette, file_id: str, token: str, *, now: datetime | None = None) -> bool:
    """Whether ``token`` was signed for ``file_id`` and has not expired (constant-time compare)."""
    exp_text, _, signature = token.partition(".")
    if not exp_text.isascii() or not exp_text.isdigit() or len(exp_text) > 12:
        return False
    exp = int(exp_text)
    if exp <= (now or utcnow()).timestamp():
        return False
    expected = _signature(services(app).jwt.secret, file_id, exp)
    return hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace"))

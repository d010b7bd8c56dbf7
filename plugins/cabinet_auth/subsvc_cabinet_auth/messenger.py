"""The messenger's signed login data: mini-application init data and login-widget fields.

Both are HMAC-SHA256 signatures over a *data-check string* (the signed ``key=value`` pairs
sorted by key, joined with newlines), keyed with a secret derived from the bot token:
``HMAC-SHA256(key="WebAppData", msg=bot_token)`` for init data, ``SHA-256(bot_token)`` for
the widget. Signatures are compared in constant time; ``auth_date`` must be recent.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

INVALID = "Invalid or expired authentication data"
MISSING_ID = "Missing messenger user ID"


class SignatureError(ValueError):
    """The data is unsigned, forged, malformed or too old."""


class TooOld(SignatureError):
    """Signed data whose ``auth_date`` is older than accepted."""


class MissingIdentity(SignatureError):
    """Signed data that names no messenger user."""


@dataclass(frozen=True)
class MessengerIdentity:
    """Who the messenger vouches for."""

    messenger_id: int
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    language: str | None = None


def data_check_string(fields: Mapping[str, Any]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields))


def init_data_secret(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def widget_secret(bot_token: str) -> bytes:
    return hashlib.sha256(bot_token.encode()).digest()


def sign(secret: bytes, fields: Mapping[str, Any]) -> str:
    """The hex HMAC-SHA256 of the fields' data-check string."""
    return hmac.new(secret, data_check_string(fields).encode(), hashlib.sha256).hexdigest()


def check_age(auth_date: Any, max_age: int, future_skew: int, now: float | None = None) -> None:
    try:
        stamp = int(auth_date)
    except (TypeError, ValueError):
        raise SignatureError("auth_date is not a number") from None
    now = time.time() if now is None else now
    if stamp > now + future_skew:
        raise SignatureError("auth_date lies in the future")
    if now - stamp > max_age:
        raise TooOld("auth_date is too old")


def verify_init_data(
    init_data: str, bot_token: str, *, max_age: int, future_skew: int = 300
) -> dict[str, Any]:
    """The signed fields of valid init data (``user`` JSON-decoded); :class:`SignatureError`
    otherwise."""
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise SignatureError("init data is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise SignatureError("a field is repeated")
    received = fields.pop("hash", None)
    if not received or not received.isascii():
        raise SignatureError("no hash")
    if "auth_date" not in fields:
        raise SignatureError("no auth_date")
    expected = sign(init_data_secret(bot_token), fields)
    if not hmac.compare_digest(expected, received.lower()):
        raise SignatureError("signature mismatch")
    check_age(fields["auth_date"], max_age, future_skew)
    result: dict[str, Any] = dict(fields)
    if "user" in fields:
        try:
            result["user"] = json.loads(fields["user"])
        except ValueError:
            raise SignatureError("user is not JSON") from None
    return result


def identity_from_init_data(fields: Mapping[str, Any]) -> MessengerIdentity:
    user = fields.get("user")
    if not isinstance(user, dict):
        raise MissingIdentity(MISSING_ID)
    messenger_id = user.get("id")
    if isinstance(messenger_id, bool) or not isinstance(messenger_id, int) or not 0 < messenger_id < 2**63:
        raise MissingIdentity(MISSING_ID)
    return MessengerIdentity(
        messenger_id=messenger_id,
        username=_text(user.get("username")),
        first_name=_text(user.get("first_name")),
        last_name=_text(user.get("last_name")),
        language=_text(user.get("language_code")),
    )


def verify_widget(
    fields: Mapping[str, Any], received_hash: str, bot_token: str, *, max_age: int, future_skew: int = 300
) -> None:
    """Raise :class:`SignatureError` unless ``received_hash`` signs ``fields`` and is recent."""
    if not received_hash.isascii():
        raise SignatureError("hash is not hex")
    expected = sign(widget_secret(bot_token), fields)
    if not hmac.compare_digest(expected, received_hash.lower()):
        raise SignatureError("signature mismatch")
    check_age(fields.get("auth_date"), max_age, future_skew)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None

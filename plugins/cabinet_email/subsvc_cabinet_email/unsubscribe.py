"""Unsubscribing from marketing e-mail (RFC 8058 one-click).

Every marketing message carries a link ``{PUBLIC_API_URL}/cabinet/public/unsubscribe?token=…``
and the headers ``List-Unsubscribe: <link>`` and ``List-Unsubscribe-Post:
List-Unsubscribe=One-Click``. The token is ``<user id>.<expiry>.<HMAC-SHA256>`` keyed with the
cabinet's JWT secret, so it names one user, cannot be forged and stops working after
``CABINET_UNSUBSCRIBE_LINK_DAYS``. Only the POST records the unsubscription; the GET (which
mail scanners open) shows the state and a form.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from urllib.parse import quote

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_cabinet_email.models import EmailUnsubscribe
from subsvc_cabinet_email.settings import CabinetEmailSettings

PATH = "/cabinet/public/unsubscribe"


def _signature(secret: str, body: str) -> str:
    return hmac.new(secret.encode(), f"unsubscribe:{body}".encode(), hashlib.sha256).hexdigest()


def make_token(app: Starlette, user_id: int, *, now: float | None = None) -> str:
    """A signed token that unsubscribes ``user_id`` until it expires."""
    days = CabinetEmailSettings.of(app).CABINET_UNSUBSCRIBE_LINK_DAYS
    expires = int((time.time() if now is None else now) + days * 86400)
    body = f"{user_id}.{expires}"
    return f"{body}.{_signature(services(app).jwt.secret, body)}"


def read_token(app: Starlette, token: str, *, now: float | None = None) -> int | None:
    """The user a genuine, unexpired token names; ``None`` otherwise."""
    parts = token.split(".")
    if len(parts) != 3 or not all(part.isascii() and part.isdigit() for part in parts[:2]):
        return None
    body = f"{parts[0]}.{parts[1]}"
    if not hmac.compare_digest(_signature(services(app).jwt.secret, body), parts[2]):
        return None
    if int(parts[1]) < (time.time() if now is None else now):
        return None
    user_id = int(parts[0])
    return user_id if 0 < user_id < 2**31 else None


def unsubscribe_url(app: Starlette, user_id: int) -> str | None:
    """The unsubscribe link of ``user_id``'s marketing mail (``None`` without ``PUBLIC_API_URL``)."""
    base = CabinetEmailSettings.of(app).PUBLIC_API_URL
    if not base:
        return None
    return f"{base.rstrip('/')}{PATH}?token={quote(make_token(app, user_id), safe='')}"


async def is_unsubscribed(session: AsyncSession, user_id: int) -> bool:
    """Did the user unsubscribe from marketing e-mail?"""
    query = select(col(EmailUnsubscribe.user_id)).where(col(EmailUnsubscribe.user_id) == user_id)
    return (await session.exec(query)).first() is not None


async def record(session: AsyncSession, user_id: int, email: str) -> None:
    """Record the unsubscription (again: nothing changes)."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = (
        insert(EmailUnsubscribe)
        .values(user_id=user_id, email=email, unsubscribed_at=utcnow())
        .on_conflict_do_nothing(index_elements=["user_id"])
    )
    await session.exec(statement)

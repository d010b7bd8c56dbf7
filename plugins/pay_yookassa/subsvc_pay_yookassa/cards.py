"""Saved cards: a card YooKassa saved (``payment_method.saved``) is recorded in the very
transaction that credits the payment which saved it; the cabinet lists a user's active cards
and unlinks one (deactivates it: YooKassa offers no call to forget a saved method)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_payments.api import PAYMENT_SUCCEEDED, Payment

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.events import Event
from subsvc_pay_yookassa.models import SavedCard
from subsvc_pay_yookassa.protocol import NAME, saved_card

CARDS = SQLModel.metadata.tables[SavedCard.__tablename__]
NOT_ENABLED = "Recurrent payments are not enabled"
NOT_FOUND = "Saved card not found"
UNLINKED = "Card unlinked successfully"
PAID_KEY = "paid_notification"
"""Where the payments core keeps what the provider reported of a paid payment."""


def record_saved_cards(session: Session, events: list[Event]) -> None:
    """In the crediting transaction: a saved card for each YooKassa payment credited now whose
    reported payment method was saved (a card already known is left as it is)."""
    ids = [
        int(event.payload["payment_id"])
        for event in events
        if event.type == PAYMENT_SUCCEEDED and event.payload.get("provider") == NAME
    ]
    if not ids:
        return
    query = select(col(Payment.id), col(Payment.user_id), col(Payment.data)).where(col(Payment.id).in_(ids))
    now = utcnow()
    rows: list[dict[str, Any]] = []
    for payment_id, user_id, data in session.execute(query).all():
        reported = data.get(PAID_KEY) if isinstance(data, dict) else None
        card = saved_card(reported) if isinstance(reported, dict) else None
        if card is not None:
            rows.append(
                {**card, "user_id": user_id, "payment_id": payment_id, "is_active": True}
                | {"created_at": now, "updated_at": now}
            )
    if rows:
        dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
        insert = (
            dialect.insert(CARDS).values(rows).on_conflict_do_nothing(index_elements=["payment_method_id"])
        )
        session.execute(insert)


async def active_cards(session: AsyncSession, user_id: int) -> list[SavedCard]:
    """The user's active saved cards, oldest first."""
    query = (
        select(SavedCard)
        .where(col(SavedCard.user_id) == user_id, col(SavedCard.is_active).is_(True))
        .order_by(col(SavedCard.created_at), col(SavedCard.id))
    )
    return list((await session.exec(query)).all())


async def unlink(session: AsyncSession, user_id: int, card_id: int) -> None:
    """Deactivate the user's active card ``card_id``: 404 when unknown, inactive or another
    user's (nothing tells it exists)."""
    changed = await session.exec(
        update(SavedCard)
        .where(
            col(SavedCard.id) == card_id,
            col(SavedCard.user_id) == user_id,
            col(SavedCard.is_active).is_(True),
        )
        .values(is_active=False, updated_at=utcnow())
    )
    if not changed.rowcount:
        raise HTTPError(404, NOT_FOUND)

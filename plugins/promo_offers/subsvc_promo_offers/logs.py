"""The promo offer log: what happened to offers and discounts (``claimed``, ``consumed``,
``disabled``), written in the transaction of the change, listed newest first."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_promo_offers.common import USER_COLUMNS, USERS, counted_page, fits_int32, user_info
from subsvc_promo_offers.models import DiscountOffer, PromoOfferLog
from subsvc_promo_offers.schemas import PromoOfferLogOfferInfo, PromoOfferLogResponse

LOGS = PromoOfferLog.__table__
OFFERS = DiscountOffer.__table__
CLAIMED = "claimed"
CONSUMED = "consumed"
DISABLED = "disabled"


def add_log(
    session: AsyncSession,
    *,
    action: str,
    user_id: int | None,
    offer_id: int | None = None,
    source: str | None = None,
    percent: int | None = None,
    effect_type: str | None = None,
    details: Mapping[str, Any] | None = None,
) -> None:
    """Add a log entry to the session (committed with the change it records)."""
    session.add(
        PromoOfferLog(
            user_id=user_id,
            offer_id=offer_id,
            action=action,
            source=source,
            percent=percent,
            effect_type=effect_type,
            details=dict(details or {}),
            created_at=utcnow(),
        )
    )


@dataclass(frozen=True)
class LogFilter:
    user_id: int | None = None
    offer_id: int | None = None
    action: str | None = None
    source: str | None = None

    def conditions(self) -> list[Any] | None:
        """The WHERE conditions; ``None`` when no row can match (an id beyond the id range)."""
        found: list[Any] = []
        for column, value in ((LOGS.c.user_id, self.user_id), (LOGS.c.offer_id, self.offer_id)):
            if value is not None:
                if not fits_int32(value):
                    return None
                found.append(column == value)
        if self.action is not None:
            found.append(LOGS.c.action == self.action)
        if self.source is not None:
            found.append(LOGS.c.source == self.source)
        return found


def _log_query() -> Select[Any]:
    offer = [
        OFFERS.c.id.label("o_id"),
        OFFERS.c.notification_type.label("o_notification_type"),
        OFFERS.c.discount_percent.label("o_discount_percent"),
        OFFERS.c.bonus_amount_kopeks.label("o_bonus_amount_kopeks"),
        OFFERS.c.effect_type.label("o_effect_type"),
        OFFERS.c.expires_at.label("o_expires_at"),
        OFFERS.c.claimed_at.label("o_claimed_at"),
        OFFERS.c.is_active.label("o_is_active"),
    ]
    return (
        select(LOGS, *USER_COLUMNS, *offer)
        .select_from(LOGS)
        .outerjoin(USERS, USERS.c.id == LOGS.c.user_id)
        .outerjoin(OFFERS, OFFERS.c.id == LOGS.c.offer_id)
    )


def _response(row: Mapping[str, Any]) -> PromoOfferLogResponse:
    offer = None
    if row["o_id"] is not None:
        offer = PromoOfferLogOfferInfo(
            id=row["o_id"],
            notification_type=row["o_notification_type"],
            discount_percent=row["o_discount_percent"],
            bonus_amount_kopeks=row["o_bonus_amount_kopeks"],
            effect_type=row["o_effect_type"],
            expires_at=row["o_expires_at"],
            claimed_at=row["o_claimed_at"],
            is_active=row["o_is_active"],
        )
    return PromoOfferLogResponse(
        id=row["id"],
        user_id=row["user_id"],
        offer_id=row["offer_id"],
        action=row["action"],
        source=row["source"],
        percent=row["percent"],
        effect_type=row["effect_type"],
        details=row["details"] or {},
        created_at=row["created_at"],
        user=user_info(row),
        offer=offer,
    )


async def list_logs(
    session: AsyncSession, filters: LogFilter, limit: int, offset: int
) -> tuple[int, list[PromoOfferLogResponse]]:
    """Log entries, newest first, and how many match."""
    conditions = filters.conditions()
    if conditions is None:
        return 0, []
    query = _log_query().where(*conditions).order_by(LOGS.c.created_at.desc(), LOGS.c.id.desc())
    total, rows = await counted_page(session, query, conditions, LOGS, limit, offset)
    return total, [_response(row) for row in rows]

"""The promo offer log: what happened to offers and discounts (``claimed``, ``consumed``,
``disabled``), written in the transaction of the change, listed newest first."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import RowMapping, Select, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import Page
from subsvc.db import utcnow
from subsvc_promo_offers.common import (
    USER_COLUMNS,
    equal_to,
    joined,
    labelled,
    newest_first_page,
    own_values,
    user_info,
)
from subsvc_promo_offers.models import PromoOfferLog
from subsvc_promo_offers.schemas import PromoOfferLogOfferInfo, PromoOfferLogResponse
from subsvc_promo_offers.tables import LOGS, OFFERS, USERS

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
        """The WHERE conditions (see :func:`equal_to`)."""
        return equal_to(
            (LOGS.c.user_id, self.user_id),
            (LOGS.c.offer_id, self.offer_id),
            (LOGS.c.action, self.action),
            (LOGS.c.source, self.source),
        )


_OFFER_FIELDS = tuple(PromoOfferLogOfferInfo.model_fields)


def _log_query() -> Select[Any]:
    return (
        select(LOGS, *USER_COLUMNS, *labelled(OFFERS, "o_", _OFFER_FIELDS))
        .select_from(LOGS)
        .outerjoin(USERS, USERS.c.id == LOGS.c.user_id)
        .outerjoin(OFFERS, OFFERS.c.id == LOGS.c.offer_id)
    )


def _response(row: RowMapping) -> PromoOfferLogResponse:
    values = own_values(row, LOGS)
    offer = joined(row, "o_", _OFFER_FIELDS)
    return PromoOfferLogResponse(
        **{**values, "details": values["details"] or {}},
        user=user_info(row),
        offer=None if offer is None else PromoOfferLogOfferInfo(**offer),
    )


async def list_logs(
    session: AsyncSession, filters: LogFilter, limit: int, offset: int
) -> Page[PromoOfferLogResponse]:
    """A page of log entries, newest first."""
    total, rows = await newest_first_page(session, _log_query(), LOGS, filters.conditions(), limit, offset)
    items = [_response(row) for row in rows]
    return Page[PromoOfferLogResponse](items=items, total=total, limit=limit, offset=offset)

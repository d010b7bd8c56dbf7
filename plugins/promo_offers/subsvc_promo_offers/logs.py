"""The promo offer log: what happened to offers and discounts (``claimed``, ``consumed``,
``disabled``), written in the transaction of the change, listed newest first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import Page
from subsvc.db import utcnow
from subsvc_promo_offers.common import Listing
from subsvc_promo_offers.models import PromoOfferLog
from subsvc_promo_offers.schemas import PromoOfferLogOfferInfo, PromoOfferLogResponse
from subsvc_promo_offers.tables import LOGS, OFFERS

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


LISTING = Listing(
    LOGS,
    PromoOfferLogResponse,
    free_json="details",
    joined="offer",
    joined_model=PromoOfferLogOfferInfo,
    joined_table=OFFERS,
)


async def list_logs(
    session: AsyncSession, limit: int, offset: int, **filters: object
) -> Page[PromoOfferLogResponse]:
    """A page of log entries with the ``filters``' values (by column), newest first."""
    total, items = await LISTING.page(session, filters, limit, offset)
    return Page[PromoOfferLogResponse](items=items, total=total, limit=limit, offset=offset)

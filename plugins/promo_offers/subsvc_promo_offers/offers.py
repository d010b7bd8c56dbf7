"""Offers: the upsert (one open offer per user and notification type), reading and listing."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col
from sqlmodel import select as model_select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import Page, fits_int32
from subsvc.db import in_list, utcnow
from subsvc_promo_offers.common import Listing, id_chunk, run_select
from subsvc_promo_offers.models import DiscountOffer
from subsvc_promo_offers.schemas import OfferSubscriptionInfo, OfferTermsRequest, PromoOfferResponse
from subsvc_promo_offers.tables import OFFERS, SUBSCRIPTIONS, USERS

OPEN = text("is_active AND claimed_at IS NULL")
_REFRESHED = (
    "subscription_id",
    "discount_percent",
    "bonus_amount_kopeks",
    "expires_at",
    "effect_type",
    "extra_data",
    "updated_at",
)


@dataclass(frozen=True)
class OfferTerms:
    """What an offer gives and for how long."""

    notification_type: str
    valid_hours: int
    discount_percent: int = 0
    bonus_amount_kopeks: int = 0
    effect_type: str = "percent_discount"
    extra_data: Mapping[str, Any] = field(default_factory=dict)
    subscription_id: int | None = None

    @classmethod
    def of(cls, request: OfferTermsRequest, subscription_id: int | None = None) -> OfferTerms:
        """The terms a request gives (texts trimmed)."""
        return cls(
            notification_type=request.notification_type.strip(),
            valid_hours=request.valid_hours,
            discount_percent=request.discount_percent,
            bonus_amount_kopeks=request.bonus_amount_kopeks,
            effect_type=request.effect_type.strip(),
            extra_data=request.extra_data,
            subscription_id=subscription_id,
        )


_COPIED = (
    "subscription_id",
    "notification_type",
    "discount_percent",
    "bonus_amount_kopeks",
    "expires_at",
    "claimed_at",
    "is_active",
    "effect_type",
    "extra_data",
    "created_at",
    "updated_at",
)


@functools.cache
def _upsert(dialect: str) -> Any:
    """``INSERT INTO discount_offers (user_id, ...) SELECT users.id, :terms... FROM users WHERE
    users.id IN (:ids) ON CONFLICT (user_id, notification_type) WHERE <open> DO UPDATE ...
    RETURNING id, user_id``: the terms are bound once for every user of the statement."""
    terms = [bindparam(name, type_=OFFERS.c[name].type).label(name) for name in _COPIED]
    # in id order: concurrent upserts over overlapping users lock their rows in one order
    rows = select(USERS.c.id, *terms).where(in_list(USERS.c.id, "ids", dialect)).order_by(USERS.c.id)
    insert = (postgresql if dialect == "postgresql" else sqlite).insert(OFFERS)
    insert = insert.from_select(["user_id", *_COPIED], rows)
    return insert.on_conflict_do_update(
        index_elements=["user_id", "notification_type"],
        index_where=OPEN,
        set_={name: insert.excluded[name] for name in _REFRESHED},
    ).returning(OFFERS.c.id, OFFERS.c.user_id)


async def upsert_offers(session: AsyncSession, user_ids: Sequence[int], terms: OfferTerms) -> dict[int, int]:
    """Offer ``terms`` to every user: a user's open offer of the same notification type is
    refreshed (terms, expiry now + ``valid_hours``), else a new offer is inserted, in one
    ``INSERT ... SELECT ... ON CONFLICT`` on the partial unique index per chunk of users (so
    concurrent offers to one user never make two open offers). Users that do not exist get
    none. Returns ``{user_id: offer_id}``.
    """
    now = utcnow()
    values: dict[str, Any] = {
        "subscription_id": terms.subscription_id,
        "notification_type": terms.notification_type,
        "discount_percent": terms.discount_percent,
        "bonus_amount_kopeks": terms.bonus_amount_kopeks,
        "expires_at": now + timedelta(hours=terms.valid_hours),
        "claimed_at": None,
        "is_active": True,
        "effect_type": terms.effect_type,
        "extra_data": dict(terms.extra_data),
        "created_at": now,
        "updated_at": now,
    }
    statement = _upsert(session.get_bind().dialect.name)
    offers: dict[int, int] = {}
    chunk = id_chunk(session)
    for start in range(0, len(user_ids), chunk):
        values["ids"] = list(user_ids[start : start + chunk])
        for offer_id, user_id in (await session.exec(statement, params=values)).all():
            offers[user_id] = offer_id
    return offers


LISTING = Listing(
    OFFERS,
    PromoOfferResponse,
    free_json="extra_data",
    joined="subscription",
    joined_model=OfferSubscriptionInfo,
    joined_table=SUBSCRIPTIONS,
)


async def get_offer(session: AsyncSession, offer_id: int) -> PromoOfferResponse | None:
    if not fits_int32(offer_id):
        return None
    row = (await run_select(session, LISTING.query().where(OFFERS.c.id == offer_id))).mappings().first()
    return None if row is None else LISTING.record_of(row)


async def offers_of(session: AsyncSession, offer_ids: Sequence[int]) -> list[PromoOfferResponse]:
    """The offers with these ids, in that order."""
    if not offer_ids:
        return []
    rows = (await run_select(session, LISTING.query().where(OFFERS.c.id.in_(offer_ids)))).mappings().all()
    by_id = {row["id"]: LISTING.record_of(row) for row in rows}
    return [by_id[offer_id] for offer_id in offer_ids if offer_id in by_id]


async def list_offers(
    session: AsyncSession, limit: int, offset: int, **filters: object
) -> Page[PromoOfferResponse]:
    """A page of offers with the ``filters``' values (by column), newest first."""
    total, items = await LISTING.page(session, filters, limit, offset)
    return Page[PromoOfferResponse](items=items, total=total, limit=limit, offset=offset)


async def user_offers(session: AsyncSession, user_id: int, now: datetime, limit: int) -> list[DiscountOffer]:
    """A user's offers that have not expired, newest first (the cabinet's list)."""
    query = (
        model_select(DiscountOffer)
        .where(col(DiscountOffer.user_id) == user_id, col(DiscountOffer.expires_at) > now)
        .order_by(col(DiscountOffer.created_at).desc(), col(DiscountOffer.id).desc())
        .limit(limit)
    )
    return list((await session.exec(query)).all())

"""What the engine prices, loaded (reads only): the buyer, tariffs, servers, the classic
tables; and consuming the buyer's personal discount (through the granting plugins' hooks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.orm import aliased
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_promo_groups.api import PromoGroup
from subsvc_servers.api import Server, ServerPromoGroup
from subsvc_subscriptions.api import SubscriptionSettings
from subsvc_tariffs.api import Tariff, list_tariffs, promo_group_ids
from subsvc_users.api import User

from subsvc.api import fits_int32
from subsvc.services import services
from subsvc_pricing.model import (
    Buyer,
    ClassicTables,
    GroupDiscounts,
    PersonalDiscount,
    ServerOffer,
    TariffTerms,
)
from subsvc_pricing.settings import PricingSettings

__all__ = [
    "buyer_of",
    "classic_tables",
    "consume_personal_discount",
    "group_discounts",
    "guest",
    "personal_discount",
    "sales_mode",
    "server_prices",
    "tariff_terms",
    "terms_of",
]

SOURCES = ("promo_offer", "promocode")


def sales_mode(app: Starlette) -> Literal["classic", "tariffs"]:
    """The ``SALES_MODE`` setting."""
    return PricingSettings.of(app).SALES_MODE


def classic_tables(app: Starlette) -> ClassicTables:
    """Classic mode's prices, from the settings (the device limits: subscriptions')."""
    settings = PricingSettings.of(app)
    limits = SubscriptionSettings.of(app)
    return ClassicTables(
        period_prices=dict(settings.CLASSIC_PERIOD_PRICES),
        renewal_periods=tuple(settings.CLASSIC_RENEWAL_PERIODS),
        traffic_prices=dict(settings.CLASSIC_TRAFFIC_PRICES),
        traffic_selectable=settings.TRAFFIC_SELECTION_MODE == "selectable",
        fixed_traffic_gb=settings.FIXED_TRAFFIC_LIMIT_GB,
        traffic_packages={gb: price for gb, price in settings.CLASSIC_TRAFFIC_PACKAGES.items() if price > 0},
        price_per_device=settings.PRICE_PER_DEVICE,
        default_device_limit=limits.DEFAULT_DEVICE_LIMIT,
        max_devices=limits.MAX_DEVICES_LIMIT,
    )


def _int_keys(stored: Mapping[str, Any] | None) -> dict[int, int]:
    """``{"30": 10}`` -> ``{30: 10}``, entries that are not whole numbers left out."""
    found: dict[int, int] = {}
    for key, value in (stored or {}).items():
        try:
            found[int(key)] = int(value)
        except (TypeError, ValueError):
            continue
    return found


def group_discounts(app: Starlette, group: PromoGroup | None) -> GroupDiscounts:
    """A promo group as the engine reads it (none: no discounts)."""
    if group is None:
        return GroupDiscounts()
    settings = PricingSettings.of(app)
    base = (
        settings.BASE_PROMO_GROUP_PERIOD_DISCOUNTS
        if settings.BASE_PROMO_GROUP_PERIOD_DISCOUNTS_ENABLED
        else {}
    )
    return GroupDiscounts(
        group_id=group.id,
        is_default=group.is_default,
        period=_int_keys(group.period_discounts),
        servers=group.server_discount_percent,
        traffic=group.traffic_discount_percent,
        devices=group.device_discount_percent,
        apply_to_addons=group.apply_discounts_to_addons,
        base_period=dict(base) if group.is_default else {},
    )


async def buyer_of(app: Starlette, session: AsyncSession, user_id: int) -> Buyer | None:
    """The user as a buyer (``None``: no such user): their promo group, else the default
    group, read with the user in one query; their personal discount from the granting
    plugins (``pricing_personal_discount``)."""
    if not fits_int32(user_id):
        return None
    own, default = aliased(PromoGroup), aliased(PromoGroup)
    query = (
        select(col(User.promo_group_id), col(User.balance_kopeks), own, default)
        .select_from(User)
        .outerjoin(own, col(own.id) == col(User.promo_group_id))
        .outerjoin(default, col(default.is_default).is_(True))  # a bare attribute reads as a relationship
        .where(col(User.id) == user_id)
    )
    row = (await session.exec(query)).first()
    if row is None:
        return None
    promo_group_id, balance, group, fallback = row
    chosen = group or fallback
    return Buyer(
        user_id=user_id,
        promo_group_id=chosen.id if chosen is not None else promo_group_id,
        group=group_discounts(app, chosen),
        personal=await personal_discount(app, session, user_id),
        balance_kopeks=balance,
    )


async def guest(app: Starlette, session: AsyncSession, promo_group_id: int | None = None) -> Buyer:
    """A buyer without an account (gifts, landings): the group given, else the default one;
    no personal discount, no balance."""
    query = select(PromoGroup).where(col(PromoGroup.is_default))
    if promo_group_id is not None and fits_int32(promo_group_id):
        query = select(PromoGroup).where(
            sa.or_(col(PromoGroup.id) == promo_group_id, col(PromoGroup.is_default))
        )
    groups = list((await session.exec(query)).all())
    chosen = next((g for g in groups if g.id == promo_group_id), None) or next(
        (g for g in groups if g.is_default), None
    )
    return Buyer(
        user_id=None,
        promo_group_id=chosen.id if chosen is not None else None,
        group=group_discounts(app, chosen),
    )


async def personal_discount(app: Starlette, session: AsyncSession, user_id: int) -> PersonalDiscount | None:
    """The user's personal discount, as the first granting plugin answers it."""
    found = await services(app).plugins.first_result(
        "pricing_personal_discount", app=app, session=session, user_id=user_id
    )
    if not found or int(found.get("percent") or 0) <= 0:
        return None
    source = found.get("source")
    expires_at: datetime | None = found.get("expires_at")
    return PersonalDiscount(
        percent=max(0, min(100, int(found["percent"]))),
        source=source if source in SOURCES else "promo_offer",
        expires_at=expires_at,
    )


async def consume_personal_discount(
    app: Starlette, session: AsyncSession, user_id: int, *, context: str
) -> int:
    """Use up the user's personal discount (in ``session``'s transaction): its percent, 0
    when the user holds none now."""
    percent = await services(app).plugins.first_result(
        "pricing_consume_personal_discount", app=app, session=session, user_id=user_id, context=context
    )
    return int(percent or 0)


def terms_of(app: Starlette, tariff: Tariff, groups: Sequence[int]) -> TariffTerms:
    """A tariff row (and its promo groups) as the engine prices it: the row's fields of the
    same names, the tables with integer keys, the groups and the settings' defaults."""
    assert tariff.id is not None
    worked_out: dict[str, Any] = {
        "period_prices": _int_keys(tariff.period_prices),
        "traffic_topup_packages": _int_keys(tariff.traffic_topup_packages),
        "allowed_squads": tuple(tariff.allowed_squads or ()),
        "promo_group_ids": frozenset(groups),
        "default_device_price_kopeks": PricingSettings.of(app).PRICE_PER_DEVICE,
        "default_max_devices": SubscriptionSettings.of(app).MAX_DEVICES_LIMIT,
    }
    return TariffTerms(
        **{
            field.name: worked_out[field.name] if field.name in worked_out else getattr(tariff, field.name)
            for field in fields(TariffTerms)
        }
    )


async def tariff_terms(
    app: Starlette, session: AsyncSession, ids: Sequence[int] | None = None, *, active_only: bool = True
) -> list[TariffTerms]:
    """Tariffs (these ids, else all; only active ones unless asked) in display order, with
    their promo groups: two queries."""
    wanted = None if ids is None else {i for i in ids if fits_int32(i)}
    if wanted is not None and not wanted:
        return []
    tariffs = [
        t
        for t in await list_tariffs(session, include_inactive=not active_only)
        if wanted is None or t.id in wanted
    ]
    groups = await promo_group_ids(session, [t.id for t in tariffs if t.id is not None])
    return [terms_of(app, t, groups[t.id]) for t in tariffs if t.id is not None]


async def server_prices(
    session: AsyncSession, promo_group_id: int | None, squads: Sequence[str] | None = None
) -> dict[str, ServerOffer]:
    """Servers (these squads, else all) by squad uuid in display order, with their monthly
    price, availability and whether the group may buy them: one query."""
    restricted = select(ServerPromoGroup.server_squad_id).where(
        col(ServerPromoGroup.server_squad_id) == col(Server.id)
    )
    open_to: sa.ColumnElement[bool] = ~restricted.exists()
    if promo_group_id is not None and fits_int32(promo_group_id):
        open_to = sa.or_(
            open_to, restricted.where(col(ServerPromoGroup.promo_group_id) == promo_group_id).exists()
        )
    query = select(Server, open_to.label("open_to_group")).order_by(col(Server.sort_order), col(Server.id))
    if squads is not None:
        if not squads:
            return {}
        query = query.where(col(Server.squad_uuid).in_(list(dict.fromkeys(squads))))
    offers: dict[str, ServerOffer] = {}
    for server, is_open in (await session.exec(query)).all():
        offers[server.squad_uuid] = ServerOffer(
            uuid=server.squad_uuid,
            name=server.display_name,
            country_code=server.country_code,
            price_kopeks=server.price_kopeks,
            is_available=server.is_available,
            is_full=server.max_users is not None and server.current_users >= server.max_users,
            open_to_group=bool(is_open),
        )
    return offers

"""The cabinet's discount views: the user's promo group discounts and the loyalty tiers (promo
groups assigned automatically by total spending) with the user's progress through them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc_promo_offers.common import run_select
from subsvc_promo_offers.schemas import LoyaltyTierInfo, LoyaltyTiersResponse, PromoGroupDiscounts
from subsvc_promo_offers.tables import GROUPS, TRANSACTIONS, USERS

SPENDING = "subscription_payment"


def period_discounts(raw: Any) -> dict[str, int]:
    """``{days: percent}`` with text keys and whole percents; entries that are not numbers are left out."""
    found: dict[str, int] = {}
    if isinstance(raw, Mapping):
        for key, value in raw.items():
            try:
                found[str(key)] = int(value)
            except (TypeError, ValueError):
                continue
    return found


async def group_discounts(session: AsyncSession, user_id: int) -> PromoGroupDiscounts:
    """The discounts of the user's promo group (all zero without one)."""
    query = select(GROUPS).select_from(USERS.join(GROUPS, GROUPS.c.id == USERS.c.promo_group_id))
    group = (await run_select(session, query.where(USERS.c.id == user_id))).mappings().first()
    if group is None:
        return PromoGroupDiscounts()
    return PromoGroupDiscounts(
        group_name=group["name"],
        server_discount_percent=group["server_discount_percent"] or 0,
        traffic_discount_percent=group["traffic_discount_percent"] or 0,
        device_discount_percent=group["device_discount_percent"] or 0,
        period_discounts=period_discounts(group["period_discounts"]),
    )


async def total_spent_kopeks(session: AsyncSession, user_id: int) -> int:
    """What the user paid for their own subscriptions (completed ``subscription_payment``
    transactions; gifts for others do not count)."""
    query = select(func.coalesce(func.sum(func.abs(TRANSACTIONS.c.amount_kopeks)), 0)).where(
        TRANSACTIONS.c.user_id == user_id,
        TRANSACTIONS.c.is_completed.is_(True),
        TRANSACTIONS.c.type == SPENDING,
    )
    return int((await run_select(session, query)).scalar_one())


async def loyalty_tiers(session: AsyncSession, user_id: int) -> LoyaltyTiersResponse:
    """Every promo group with a spending threshold, lowest first: which the user has reached,
    the highest reached (current), the next one and the progress towards it."""
    spent = await total_spent_kopeks(session, user_id)
    query = (
        select(GROUPS)
        .where(
            GROUPS.c.auto_assign_total_spent_kopeks.is_not(None), GROUPS.c.auto_assign_total_spent_kopeks > 0
        )
        .order_by(GROUPS.c.auto_assign_total_spent_kopeks, GROUPS.c.id)
    )
    tiers: list[LoyaltyTierInfo] = []
    current: str | None = None
    next_name: str | None = None
    next_threshold: float | None = None
    for group in (await run_select(session, query)).mappings():
        threshold = group["auto_assign_total_spent_kopeks"]
        achieved = spent >= threshold
        if achieved:
            current = group["name"]
        elif next_name is None:
            next_name, next_threshold = group["name"], threshold / 100
        tiers.append(
            LoyaltyTierInfo(
                id=group["id"],
                name=group["name"],
                threshold_rubles=threshold / 100,
                server_discount_percent=group["server_discount_percent"] or 0,
                traffic_discount_percent=group["traffic_discount_percent"] or 0,
                device_discount_percent=group["device_discount_percent"] or 0,
                period_discounts=period_discounts(group["period_discounts"]),
                is_achieved=achieved,
            )
        )
    for tier in reversed(tiers):
        if tier.is_achieved:
            tier.is_current = True
            break
    progress = 0.0
    if next_threshold:
        progress = min(100.0, spent / 100 / next_threshold * 100)
    elif tiers:
        progress = 100.0
    return LoyaltyTiersResponse(
        tiers=tiers,
        current_spent_rubles=spent / 100,
        current_tier_name=current,
        next_tier_name=next_name,
        next_tier_threshold_rubles=next_threshold,
        progress_percent=progress,
    )

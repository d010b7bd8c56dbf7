"""What a user may buy: the purchase options the cabinet reads.

- A tariff is offered when it is active and the buyer's promo group may buy it: a tariff with
  no promo groups is open to every group; one with groups only to their members (a buyer
  without a group sees only the open tariffs).
- Each period's price gets the group's period discount for exactly that many days
  (``period_discounts`` of the promo group, ``{"<days>": percent}``): the discount is
  ``price * percent // 100``, and a price discounted by at least one ruble is rounded up to
  the whole ruble (never above the undiscounted price), so fractions never undercharge.
- Order: the tariffs' display order; periods by days.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_promo_groups.api import PromoGroup, find_group
from subsvc_users.api import User

from subsvc.api import INT32_MAX
from subsvc_tariffs import service
from subsvc_tariffs.models import Tariff


@dataclass(frozen=True)
class PeriodOption:
    """One period of a tariff at the buyer's price."""

    days: int
    price_kopeks: int
    original_price_kopeks: int
    discount_percent: int


@dataclass(frozen=True)
class PurchaseOption:
    """A tariff the buyer may buy, with its periods at the buyer's prices."""

    tariff_id: int
    name: str
    description: str | None
    tier_level: int
    traffic_limit_gb: int
    device_limit: int
    is_daily: bool
    daily_price_kopeks: int
    is_trial_available: bool
    periods: tuple[PeriodOption, ...]


def discounted(price_kopeks: int, percent: int) -> int:
    """``price_kopeks`` less ``percent`` (clamped to 0..100), rounded up to the ruble once
    the discount reaches a ruble; never more than the price."""
    percent = max(0, min(100, percent))
    if price_kopeks <= 0 or percent == 0:
        return price_kopeks
    discount = price_kopeks * percent // 100
    price = price_kopeks - discount
    if discount >= 100 and price % 100:
        price = min(price + 100 - price % 100, price_kopeks)
    return price


def period_discounts(group: PromoGroup | None) -> dict[int, int]:
    """The group's ``{days: percent}`` (entries that are not whole numbers left out)."""
    found: dict[int, int] = {}
    for days, percent in ((group.period_discounts if group else None) or {}).items():
        try:
            found[int(days)] = int(percent)
        except (TypeError, ValueError):
            continue
    return found


def allowed(groups: Sequence[int], promo_group_id: int | None) -> bool:
    """May a member of ``promo_group_id`` buy a tariff restricted to ``groups`` (empty: all)?"""
    return not groups or (promo_group_id is not None and promo_group_id in groups)


async def purchase_options(session: AsyncSession, promo_group_id: int | None) -> list[PurchaseOption]:
    """The active tariffs a member of ``promo_group_id`` may buy, with discounted periods
    (three queries)."""
    group = await find_group(session, promo_group_id) if promo_group_id is not None else None
    discounts = period_discounts(group)
    tariffs = await service.list_tariffs(session, include_inactive=False)
    groups = await service.promo_group_ids(session, [t.id for t in tariffs if t.id is not None])
    options: list[PurchaseOption] = []
    for tariff in tariffs:
        assert tariff.id is not None
        if not allowed(groups[tariff.id], group.id if group else None):
            continue
        periods = tuple(
            PeriodOption(
                days=price.days,
                price_kopeks=discounted(price.price_kopeks, discounts.get(price.days, 0)),
                original_price_kopeks=price.price_kopeks,
                discount_percent=max(0, min(100, discounts.get(price.days, 0))),
            )
            for price in service.period_list(tariff.period_prices)
        )
        options.append(
            PurchaseOption(
                tariff_id=tariff.id,
                name=tariff.name,
                description=tariff.description,
                tier_level=tariff.tier_level,
                traffic_limit_gb=tariff.traffic_limit_gb,
                device_limit=tariff.device_limit,
                is_daily=tariff.is_daily,
                daily_price_kopeks=tariff.daily_price_kopeks,
                is_trial_available=tariff.is_trial_available,
                periods=periods,
            )
        )
    return options


async def purchase_options_for_user(session: AsyncSession, user_id: int) -> list[PurchaseOption] | None:
    """:func:`purchase_options` for the user's promo group; ``None`` when no user has the id."""
    if not 1 <= user_id <= INT32_MAX:
        return None
    query = select(col(User.id), col(User.promo_group_id)).where(col(User.id) == user_id)
    row = (await session.exec(query)).first()
    return None if row is None else await purchase_options(session, row[1])


async def user_tariffs(
    session: AsyncSession, promo_group_id: int | None, *, include_inactive: bool
) -> list[dict[str, Any]]:
    """The items of ``GET /cabinet/admin/users/{id}/available-tariffs`` (the
    ``cabinet_admin_user_tariffs`` hook): every tariff (active ones only unless
    ``include_inactive``), whether the user's group may buy it, and whether it is restricted."""
    tariffs = await service.list_tariffs(session, include_inactive=include_inactive)
    groups = await service.promo_group_ids(session, [t.id for t in tariffs if t.id is not None])
    items: list[dict[str, Any]] = []
    for tariff in tariffs:
        assert tariff.id is not None
        restricted = groups[tariff.id]
        items.append(
            {
                **_tariff_fields(tariff),
                "period_prices": [
                    p.model_dump(include={"days", "price_kopeks", "price_rubles"})
                    for p in service.period_list(tariff.period_prices)
                ],
                "is_available": tariff.is_active and allowed(restricted, promo_group_id),
                "requires_promo_group": bool(restricted),
            }
        )
    return items


def _tariff_fields(tariff: Tariff) -> dict[str, Any]:
    names = (
        "id",
        "name",
        "description",
        "is_active",
        "is_trial_available",
        "traffic_limit_gb",
        "device_limit",
        "tier_level",
        "display_order",
        "is_daily",
        "daily_price_kopeks",
        "custom_days_enabled",
        "price_per_day_kopeks",
        "min_days",
        "max_days",
        "device_price_kopeks",
        "max_device_limit",
        "traffic_topup_enabled",
        "traffic_topup_packages",
        "max_topup_traffic_gb",
    )
    return {name: getattr(tariff, name) for name in names}

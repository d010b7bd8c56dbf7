"""The tariffs of a user as the cabinet admin's ``available-tariffs`` shows them (the
``cabinet_admin_user_tariffs`` hook): every tariff, whether the user's promo group may buy
it. Prices are the pricing plugin's (``subsvc_pricing``): nothing here computes one."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc_tariffs import service
from subsvc_tariffs.models import Tariff


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
                "is_available": tariff.is_active and service.allowed(restricted, promo_group_id),
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

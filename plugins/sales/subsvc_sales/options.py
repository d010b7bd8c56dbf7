"""``GET /purchase-options``: what the user can buy and at what price, in either sales mode
(every price the pricing engine's)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing.api import (
    Buyer,
    ClassicTables,
    PeriodPrice,
    ServerOffer,
    TariffTerms,
    apply_discount,
    classic_tables,
    group_percent,
    months_of,
    price_per_month,
    sales_mode,
    server_prices,
    tariff_periods,
    tariff_terms,
)
from subsvc_subscriptions.api import Subscription, SubscriptionSettings, actual_status, of_user, resolve

from subsvc.api import price_label
from subsvc.db import utcnow
from subsvc_sales.common import SalesError, find_buyer
from subsvc_sales.schemas import ClassicPurchaseOptions, PeriodOption, TariffOption, TariffsPurchaseOptions
from subsvc_sales.settings import SalesSettings


def period_option(price: PeriodPrice) -> PeriodOption:
    """A period as the options list it (discount fields only when discounted)."""
    discounted = price.original_price_kopeks > price.price_kopeks
    return PeriodOption(
        id=f"days:{price.days}",
        days=price.days,
        months=price.months,
        label=f"{price.days} дн.",
        price_kopeks=price.price_kopeks,
        price_label=price_label(price.price_kopeks),
        price_per_month_kopeks=price.price_per_month_kopeks,
        price_per_month_label=price_label(price.price_per_month_kopeks),
        original_price_kopeks=price.original_price_kopeks if discounted else None,
        original_price_label=price_label(price.original_price_kopeks) if discounted else None,
        discount_percent=price.discount_percent if discounted else None,
    )


# The tariff's terms an option shows as the engine has them (the same name in both).
_TERMS_SHOWN = tuple(f.name for f in fields(TariffTerms) if f.name in TariffOption.model_fields)


def _traffic_label(gb: int) -> str:
    return "Безлимит" if gb == 0 else f"{gb} ГБ"


def _is_free(tariff: TariffTerms) -> bool:
    if tariff.is_daily:
        return tariff.daily_price_kopeks <= 0
    prices = [int(tariff.period_prices[days]) for days in tariff.periods()]
    return bool(prices) and all(price == 0 for price in prices)


def _tariff_option(
    tariff: TariffTerms,
    buyer: Buyer,
    held: dict[int, Subscription],
    current: Subscription | None,
    multi: bool,
) -> TariffOption:
    own = held.get(tariff.id)
    more_devices = own.device_limit if own is not None and own.device_limit > tariff.device_limit else None
    periods = tariff_periods(tariff, replace(buyer, personal=None), device_limit=more_devices)
    return TariffOption(
        **{name: getattr(tariff, name) for name in _TERMS_SHOWN},
        description=None,
        traffic_limit_label=_traffic_label(tariff.traffic_limit_gb),
        is_unlimited_traffic=tariff.traffic_limit_gb == 0,
        servers_count=len(tariff.allowed_squads),
        periods=[period_option(p) for p in periods],
        is_current=current is not None and current.tariff_id == tariff.id,
        is_purchased=multi and own is not None and not own.is_trial,
    )


async def tariffs_options(
    app: Starlette,
    session: AsyncSession,
    buyer: Buyer,
    user_id: int,
    subscription_id: int | None,
    now: datetime,
) -> TariffsPurchaseOptions:
    """Tariffs mode: the active tariffs open to the buyer's group, each period at their price
    (group discounts; extra devices only where the user holds the tariff with more)."""
    multi = SubscriptionSettings.of(app).MULTI_TARIFF_ENABLED
    settings = SalesSettings.of(app)
    current = await resolve(session, user_id, subscription_id, multi=multi, now=now)
    if subscription_id is not None and current is None:
        raise SalesError(404, "Subscription not found")
    held = {s.tariff_id: s for s in reversed(await of_user(session, user_id, live_only=True)) if s.tariff_id}
    tariffs = [t for t in await tariff_terms(app, session) if t.open_to(buyer.promo_group_id)]
    options = [_tariff_option(t, buyer, held, current, multi) for t in tariffs]
    current_tariff = next((t for t in tariffs if current is not None and t.id == current.tariff_id), None)
    status = actual_status(current.status, current.end_date, now) if current is not None else None
    return TariffsPurchaseOptions(
        tariffs=options,
        current_tariff_id=current.tariff_id if current is not None else None,
        balance_kopeks=buyer.balance_kopeks,
        balance_label=price_label(buyer.balance_kopeks),
        subscription_status=status,
        subscription_is_expired=status == "expired",
        subscription_on_free_tariff=current_tariff is not None and _is_free(current_tariff),
        has_subscription=current is not None,
        all_tariffs_purchased=multi and bool(options) and all(o.is_purchased for o in options),
        tariff_switch_upgrade_enabled=settings.TARIFF_SWITCH_UPGRADE_ENABLED,
        tariff_switch_downgrade_enabled=settings.TARIFF_SWITCH_DOWNGRADE_ENABLED,
        platega_recurrent_enabled=False,  # the recurrent plugin answers 503: no provider recurrence yet
        lava_recurrent_enabled=False,
    )


def classic_periods(ct: ClassicTables, buyer: Buyer) -> list[PeriodOption]:
    """The period table at the buyer's group percent for each period."""
    found = []
    for days in sorted(ct.period_prices):
        original = ct.period_prices[days]
        if original < 0:
            continue
        price = apply_discount(original, group_percent(buyer.group, "period", days=days))
        percent = (original - price) * 100 // original if original > 0 else 0
        found.append(
            period_option(
                PeriodPrice(days, months_of(days), price, original, percent, price_per_month(price, days))
            )
        )
    return found


def default_selection(
    ct: ClassicTables, offers: Sequence[ServerOffer], current: Subscription | None
) -> dict[str, object]:
    """What the form starts with: the user's subscription as it is, else the first period, the
    largest traffic tier (fixed: the fixed one), the first server on sale, the included devices."""
    periods = sorted(days for days, price in ct.period_prices.items() if price >= 0)
    days = 30 if 30 in periods else (periods[0] if periods else 30)
    traffic = (
        ct.fixed_traffic_gb
        if not ct.traffic_selectable
        else (0 if 0 in ct.traffic_prices else max(ct.traffic_prices, default=0))
    )
    on_sale = [o.uuid for o in offers if o.is_available and not o.is_full and o.open_to_group]
    servers = (
        list(current.connected_squads) if current is not None and current.connected_squads else on_sale[:1]
    )
    devices = current.device_limit if current is not None else ct.default_device_limit
    return {
        "period_id": f"days:{days}",
        "period_days": days,
        "traffic_value": traffic,
        "servers": servers,
        "devices": devices,
    }


async def classic_options(
    app: Starlette,
    session: AsyncSession,
    buyer: Buyer,
    user_id: int,
    subscription_id: int | None,
    now: datetime,
) -> ClassicPurchaseOptions:
    """Classic mode: the periods, traffic tiers, servers and devices on sale, each at the
    buyer's group percent, and a default selection."""
    ct = classic_tables(app)
    current = await resolve(session, user_id, subscription_id, multi=False, now=now)
    if subscription_id is not None and current is None:
        raise SalesError(404, "Subscription not found")
    offers = list((await server_prices(session, buyer.promo_group_id)).values())
    traffic_options = [
        {
            "value": gb,
            "label": _traffic_label(gb),
            "price_kopeks": price,
            "price_label": price_label(price),
            "is_available": True,
        }
        for gb, price in sorted(ct.traffic_prices.items(), key=lambda item: (item[0] == 0, item[0]))
    ]
    servers = [
        {
            "uuid": o.uuid,
            "name": o.name,
            "country_code": o.country_code,
            "price_kopeks": o.price_kopeks,
            "price_label": price_label(o.price_kopeks),
            "is_available": o.is_available and not o.is_full and o.open_to_group,
        }
        for o in offers
    ]
    selection = default_selection(ct, offers, current)
    return ClassicPurchaseOptions(
        balance_kopeks=buyer.balance_kopeks,
        balance_label=price_label(buyer.balance_kopeks),
        subscription_id=current.id if current is not None else None,
        periods=classic_periods(ct, buyer),
        traffic={
            "selectable": ct.traffic_selectable,
            "mode": "selectable" if ct.traffic_selectable else "fixed",
            "options": traffic_options if ct.traffic_selectable else [],
            "default": selection["traffic_value"],
        },
        servers={"options": servers, "min": 1, "max": len(servers), "default": selection["servers"]},
        devices={
            "min": 1,
            "max": ct.max_devices or 100,
            "default": selection["devices"],
            "price_per_device_kopeks": ct.price_per_device,
            "price_per_device_label": price_label(ct.price_per_device),
            "included": ct.default_device_limit,
        },
        selection=selection,
    )


async def purchase_options(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None = None,
    *,
    now: datetime | None = None,
) -> TariffsPurchaseOptions | ClassicPurchaseOptions:
    """The purchase options of the sales mode (404 for a ``subscription_id`` not the user's)."""
    now = now or utcnow()
    buyer = await find_buyer(app, session, user_id)
    if sales_mode(app) == "tariffs":
        return await tariffs_options(app, session, buyer, user_id, subscription_id, now)
    return await classic_options(app, session, buyer, user_id, subscription_id, now)

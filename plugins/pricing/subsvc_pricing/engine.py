"""The pricing engine: pure functions of the notes' formulas (behaviours-money §1.2, §1.3,
§2.2, §2.3); no I/O, the clock passed in.

- Discounts: ``amount - floor(amount * pct / 100)``, pct clamped to 0..100. A buyer's group
  discount applies per line (its category's percent), then the personal percent on the
  subtotal; ``original = final + group discount + personal discount``.
- Months of a period: ``max(1, round(days / 30))``, half to even (15 -> 1, 45 -> 2, 75 -> 2).
- Add-ons are prorated to the days left (``ceil``, at least 1): ``monthly * days // 30``,
  at least 100 kopeks when the monthly price is above 0; add-ons take no personal discount.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from fractions import Fraction

from subsvc.api import price_label
from subsvc_pricing.model import (
    DEFAULT_PERIOD_DAYS,
    Buyer,
    Category,
    ClassicSelection,
    ClassicTables,
    GroupDiscounts,
    Line,
    LineKind,
    PeriodPrice,
    PricingError,
    Quote,
    SwitchQuote,
    TariffTerms,
)

__all__ = [
    "add_on_days_left",
    "apply_discount",
    "classic_purchase",
    "classic_renewal",
    "classic_renewal_periods",
    "closest_period_percent",
    "daily_charge",
    "devices_addon",
    "finish",
    "group_percent",
    "months_of",
    "price_label",
    "price_per_month",
    "prorate",
    "servers_addon",
    "tariff_periods",
    "tariff_purchase",
    "tariff_renewal",
    "tariff_switch",
    "tier_price",
    "traffic_package",
    "traffic_package_switch",
]

MIN_ADDON_KOPEKS = 100
DAY = timedelta(days=1)

PERIOD_NOT_AVAILABLE = "Selected period is not available for this tariff"
CLASSIC_PERIOD_INVALID = "Invalid or missing subscription period"
TRAFFIC_NOT_AVAILABLE = "Selected traffic option is not available"
NO_SERVERS = "Select at least one server"
DEVICES_INVALID = "Invalid devices selection"


# --- the rules every price follows ---------------------------------------------------------------


def _clamp(percent: int) -> int:
    return max(0, min(100, percent))


def apply_discount(amount: int, percent: int) -> int:
    """``amount - floor(amount * pct / 100)``, ``pct`` clamped to 0..100 (§1.2)."""
    return amount - amount * _clamp(percent) // 100


def months_of(days: int) -> int:
    """``max(1, round(days / 30))`` with Python's half-to-even rounding (§1.3)."""
    return max(1, round(Fraction(days, 30)))


def price_per_month(price: int, days: int) -> int:
    """``round(price * 30 / days)`` (purchase options' ``price_per_month_kopeks``)."""
    return round(Fraction(price * 30, days)) if days > 0 else price


def group_percent(g: GroupDiscounts, c: Category, *, days: int | None = None, addon: bool = False) -> int:
    """The group's percent for a category (§1.2): ``period`` by exact days (the default group
    falls back to the settings' table); the add-on categories flat, the default group falling
    back to the period percent of ``days`` where it has 0; ``addon`` purchases (bought on
    their own) get it only when the group applies its discounts to add-ons."""
    if addon and not g.apply_to_addons:
        return 0
    if c == "period":
        return _clamp(_period_percent(g, days))
    flat = {"servers": g.servers, "traffic": g.traffic, "devices": g.devices}[c]
    if flat == 0 and g.is_default:
        flat = _period_percent(g, days)
    return _clamp(flat)


def _period_percent(g: GroupDiscounts, days: int | None) -> int:
    if not days:
        return 0
    if days in g.period:
        return g.period[days]
    return g.base_period.get(days, 0) if g.is_default else 0


def closest_period_percent(g: GroupDiscounts, periods: Sequence[int], remaining_days: int) -> int:
    """The group's period percent of the period closest to ``remaining_days`` (the shorter
    one on a tie; 30 days without periods): the discount of a periodic switch (§2.3)."""
    closest = min(periods or (DEFAULT_PERIOD_DAYS,), key=lambda p: (abs(p - remaining_days), p))
    return group_percent(g, "period", days=closest)


def add_on_days_left(end: datetime, now: datetime) -> int:
    """``max(1, ceil(seconds left / 86400))`` (§1.3 proration)."""
    left = end - now
    return max(1, left.days + (1 if left.seconds or left.microseconds else 0))


def prorate(monthly: int, end: datetime, now: datetime) -> int:
    """``monthly * days_left // 30``, at least 100 kopeks when ``monthly`` is above 0 (§1.3)."""
    price = monthly * add_on_days_left(end, now) // 30
    return max(MIN_ADDON_KOPEKS, price) if monthly > 0 else price


def finish(lines: Sequence[Line], personal_percent: int, *, days: int = 0) -> Quote:
    """The quote of these lines: the personal percent on their subtotal, never below 0."""
    subtotal = sum(line.final_kopeks for line in lines)
    return Quote(
        lines=tuple(lines),
        personal_percent=_clamp(personal_percent),
        final_kopeks=max(0, apply_discount(subtotal, personal_percent)),
        days=days,
        months=months_of(days) if days > 0 else 0,
    )


def _line(kind: LineKind, original: int, percent: int) -> Line:
    return Line(
        kind=kind,
        original_kopeks=original,
        percent=_clamp(percent),
        final_kopeks=apply_discount(original, percent),
    )


def _period_price(days: int, quote: Quote) -> PeriodPrice:
    return PeriodPrice(
        days=days,
        months=months_of(days),
        price_kopeks=quote.final_kopeks,
        original_price_kopeks=quote.original_kopeks,
        discount_percent=quote.discount_percent,
        price_per_month_kopeks=price_per_month(quote.final_kopeks, days),
    )


# --- tariffs mode --------------------------------------------------------------------------------


def _tariff_base(t: TariffTerms, days: int) -> int:
    """A period's price, else the custom days' (``price_per_day * days`` within the tariff's
    bounds); 400 when neither sells ``days``."""
    price = t.period_prices.get(days)
    if price is not None and price >= 0:
        return price
    if t.custom_days_enabled and t.min_days <= days <= t.max_days:
        return t.price_per_day_kopeks * days
    raise PricingError(PERIOD_NOT_AVAILABLE)


def tariff_purchase(
    t: TariffTerms, b: Buyer, *, days: int, device_limit: int | None = None, traffic_gb: int | None = None
) -> Quote:
    """A tariff bought for ``days`` (§1.3): the period's (or custom days', or a daily tariff's
    daily) price with the group's period percent; the devices above the included ones at the
    tariff's device price per month (no months factor when daily) with the devices percent;
    custom traffic (``price_per_gb * gb`` within the tariff's bounds, 400 outside) with the
    add-on traffic percent; group percents only when the tariff is open to the buyer's group;
    then the personal percent. A daily tariff is always priced for one day."""
    daily = t.is_daily
    days = 1 if daily else days
    months = months_of(days)
    g = b.group if t.open_to(b.promo_group_id) else GroupDiscounts()
    base = t.daily_price_kopeks if daily else _tariff_base(t, days)
    lines = [_line("daily" if daily else "period", base, group_percent(g, "period", days=days))]
    extra = max(0, (t.device_limit if device_limit is None else device_limit) - t.device_limit)
    if extra:
        devices = extra * t.device_unit_price() * (1 if daily else months)
        lines.append(_line("devices", devices, group_percent(g, "devices", days=days)))
    if traffic_gb is not None and t.custom_traffic_enabled:
        if not t.min_traffic_gb <= traffic_gb <= t.max_traffic_gb:
            raise PricingError(
                f"Traffic must be between {t.min_traffic_gb} and {t.max_traffic_gb} GB for this tariff"
            )
        traffic = t.traffic_price_per_gb_kopeks * traffic_gb
        lines.append(_line("custom_traffic", traffic, group_percent(g, "traffic", addon=True)))
    return finish(lines, b.personal_percent, days=days)


def tariff_renewal(t: TariffTerms, b: Buyer, *, days: int, device_limit: int) -> Quote:
    """A renewal of a subscription of the tariff with ``device_limit`` devices: priced as
    its purchase (§1.3: the same formula, without custom traffic)."""
    return tariff_purchase(t, b, days=days, device_limit=device_limit)


def tariff_periods(t: TariffTerms, b: Buyer, *, device_limit: int | None = None) -> list[PeriodPrice]:
    """Every enabled period of the tariff at the buyer's price (a daily tariff: its day);
    pass a buyer without ``personal`` for group discounts only."""
    days = (1,) if t.is_daily else t.periods()
    return [_period_price(d, tariff_purchase(t, b, days=d, device_limit=device_limit)) for d in days]


def daily_charge(t: TariffTerms, b: Buyer, *, personal: bool) -> Quote:
    """A daily tariff's day (§2.2): its daily price with the group's period percent for 1
    day, and the personal percent unless ``personal`` is false (a resume takes none)."""
    g = b.group if t.open_to(b.promo_group_id) else GroupDiscounts()
    line = _line("daily", t.daily_price_kopeks, group_percent(g, "period", days=1))
    return finish([line], b.personal_percent if personal else 0, days=1)


# --- classic mode --------------------------------------------------------------------------------


def tier_price(prices: Mapping[int, int], gb: int) -> int:
    """A traffic tier's monthly price: the tier of exactly ``gb``; 0 GB (unlimited) or more
    than the largest tier is the unlimited tier's (else the largest's); otherwise the
    smallest tier above ``gb``. 0 without tiers."""
    if gb in prices:
        return prices[gb]
    finite = sorted(tier for tier in prices if tier > 0)
    unlimited = prices.get(0)
    if gb <= 0 or not finite or gb > finite[-1]:
        if unlimited is not None:
            return unlimited
        return prices[finite[-1]] if finite else 0
    return prices[next(tier for tier in finite if tier >= gb)]


def _classic_traffic(ct: ClassicTables, s: ClassicSelection) -> int:
    """The traffic's monthly price: the base limit's tier plus the purchased traffic's tier
    (0 = unlimited has a tier of its own)."""
    if s.traffic_gb == 0:
        return tier_price(ct.traffic_prices, 0)
    base = max(0, s.traffic_gb - s.purchased_traffic_gb)
    price = tier_price(ct.traffic_prices, base) if base > 0 else 0
    return price + (
        tier_price(ct.traffic_prices, s.purchased_traffic_gb) if s.purchased_traffic_gb > 0 else 0
    )


def _classic(ct: ClassicTables, server_prices: Mapping[str, int], b: Buyer, s: ClassicSelection) -> Quote:
    days = s.period_days
    months = months_of(days)
    g = b.group
    servers = sum(server_prices.get(squad, 0) for squad in dict.fromkeys(s.squads)) * months
    devices = max(0, s.devices - ct.default_device_limit) * ct.price_per_device * months
    lines = [
        _line("period", ct.period_prices[days], group_percent(g, "period", days=days)),
        _line("servers", servers, group_percent(g, "servers", days=days)),
        _line("traffic", _classic_traffic(ct, s) * months, group_percent(g, "traffic", days=days)),
        _line("devices", devices, group_percent(g, "devices", days=days)),
    ]
    return finish(lines, b.personal_percent, days=days)


def classic_purchase(
    ct: ClassicTables, server_prices: Mapping[str, int], b: Buyer, s: ClassicSelection
) -> Quote:
    """A classic subscription (§1.3): the period's price, the servers' monthly prices
    (unknown squads cost 0; unavailable or full ones their price), the traffic tier a month
    (the fixed limit in fixed mode) and the devices above ``DEFAULT_DEVICE_LIMIT`` a month,
    the monthly parts times the period's months, each with its group percent; then the
    personal percent. The reference's 400 texts for a selection the tables do not sell."""
    if s.period_days not in ct.period_prices or ct.period_prices[s.period_days] < 0:
        raise PricingError(CLASSIC_PERIOD_INVALID)
    if not ct.traffic_selectable:
        s = replace(s, traffic_gb=ct.fixed_traffic_gb, purchased_traffic_gb=0)
    elif s.traffic_gb not in ct.traffic_prices:
        raise PricingError(TRAFFIC_NOT_AVAILABLE)
    if not s.squads:
        raise PricingError(NO_SERVERS)
    if s.devices < 1 or (ct.max_devices and s.devices > ct.max_devices):
        raise PricingError(DEVICES_INVALID)
    return _classic(ct, server_prices, b, s)


def classic_renewal(
    ct: ClassicTables, server_prices: Mapping[str, int], b: Buyer, current: ClassicSelection, *, days: int
) -> Quote:
    """A classic subscription as it is (its traffic, purchased traffic, squads and devices)
    renewed for ``days``, priced as :func:`classic_renewal_periods` lists it; 400 'Invalid or
    missing subscription period' for a period the renewal and period tables do not both sell."""
    if days not in ct.renewal_periods or ct.period_prices.get(days, -1) < 0:
        raise PricingError(CLASSIC_PERIOD_INVALID)
    return _classic(ct, server_prices, b, replace(current, period_days=days))


def classic_renewal_periods(
    ct: ClassicTables, server_prices: Mapping[str, int], b: Buyer, current: ClassicSelection
) -> list[PeriodPrice]:
    """The renewal periods of a classic subscription as it is (its traffic, purchased
    traffic, squads and devices) that the period table prices; periods whose price and
    original price are both 0 are left out (§2.2 renewal options)."""
    found: list[PeriodPrice] = []
    for days in ct.renewal_periods:
        if ct.period_prices.get(days, -1) < 0:
            continue
        quote = _classic(ct, server_prices, b, replace(current, period_days=days))
        if quote.final_kopeks or quote.original_kopeks:
            found.append(_period_price(days, quote))
    return found


# --- add-ons -------------------------------------------------------------------------------------


def _addon_hint(end: datetime, now: datetime) -> int:
    """The period hint of an add-on's default-group fallback: the days left in months of 30."""
    return months_of(add_on_days_left(end, now)) * DEFAULT_PERIOD_DAYS


def _floored(original: int, percent: int) -> int:
    """An add-on's price after its discount: at least 100 kopeks unless free or 100 % off."""
    final = apply_discount(original, percent)
    return max(MIN_ADDON_KOPEKS, final) if original > 0 and _clamp(percent) < 100 else final


def devices_addon(unit: int, chargeable: int, b: Buyer, *, end: datetime, now: datetime) -> Quote:
    """Devices bought on top (§2.2): ``int(unit * chargeable * days_left / 30)``, at least 100
    kopeks when any is chargeable; then the add-on devices percent, at least 100 kopeks
    unless 100 %."""
    raw = max(0, unit) * max(0, chargeable) * add_on_days_left(end, now) // 30
    if chargeable > 0 and unit > 0:
        raw = max(MIN_ADDON_KOPEKS, raw)
    percent = group_percent(b.group, "devices", days=_addon_hint(end, now), addon=True)
    line = Line("devices", raw, _clamp(percent), _floored(raw, percent))
    return finish([line], 0)


def traffic_package(price: int, b: Buyer, *, prorate_to: tuple[datetime, datetime] | None) -> Quote:
    """A traffic package bought on top: its price (classic mode: prorated to the days left,
    ``prorate_to=(end, now)``), then the add-on traffic percent, at least 100 kopeks when
    discounted (unless 100 %). The listing, the saved cart and the purchase price alike."""
    original = prorate(price, *prorate_to) if prorate_to is not None else price
    hint = _addon_hint(*prorate_to) if prorate_to is not None else None
    percent = group_percent(b.group, "traffic", days=hint, addon=True)
    final = _floored(original, percent) if _clamp(percent) else original
    return finish([Line("package", original, _clamp(percent), final)], 0)


def traffic_package_switch(current: int, new: int, b: Buyer, *, end: datetime, now: datetime) -> Quote:
    """Another classic traffic package (§2.2 ``PUT /traffic``): an upgrade costs the price
    difference with the add-on traffic percent, prorated to the days left; a downgrade is
    free (no refund)."""
    difference = max(0, new - current)
    percent = group_percent(b.group, "traffic", days=_addon_hint(end, now), addon=True)
    original = prorate(difference, end, now)
    final = prorate(apply_discount(difference, percent), end, now)
    return finish([Line("package", original, _clamp(percent), final)], 0)


def servers_addon(added_monthly: Mapping[str, int], b: Buyer, *, end: datetime, now: datetime) -> Quote:
    """Servers added to a classic subscription (§2.2 ``POST /countries``): their monthly
    prices with the add-on servers percent, prorated to the days left."""
    monthly = sum(added_monthly.values())
    percent = group_percent(b.group, "servers", days=_addon_hint(end, now), addon=True)
    original = prorate(monthly, end, now)
    final = prorate(apply_discount(monthly, percent), end, now)
    return finish([Line("servers", original, _clamp(percent), final)], 0)


# --- tariff switch (§2.3) ------------------------------------------------------------------------


def _devices_moved(cur: TariffTerms, new: TariffTerms, device_limit: int) -> tuple[int, int, int]:
    """``(new device limit, carried, dropped)``: the extra devices above the old tariff's
    included ones, on top of the new tariff's, up to its cap."""
    extra = max(0, device_limit - cur.device_limit)
    cap = new.device_cap()
    room = extra if cap is None else max(0, cap - new.device_limit)
    carried = min(extra, room)
    return new.device_limit + carried, carried, extra - carried


def tariff_switch(
    cur: TariffTerms, new: TariffTerms, b: Buyer, *, end: datetime, now: datetime, device_limit: int
) -> SwitchQuote:
    """Switching a subscription from ``cur`` to ``new`` (§2.3), ``remaining_days =
    floor((end - now) / 1 day)``:

    - daily -> daily: free, a new day from now;
    - periodic -> daily: the new daily price, group percent of the remaining days (30 when
      none left) and the personal one stacked; a new day from now;
    - daily -> periodic: the new tariff's shortest period, its group percent and the personal
      one stacked; a new period from now;
    - periodic -> periodic: each tariff's daily rate is its shortest period's price over its
      days; ``floor((new_p*cur_d - cur_p*new_d) * remaining / (new_d*cur_d))``; a numerator of
      0 or less is a free downgrade, else the group percent of the current tariff's period
      closest to the remaining days and the personal one are stacked; the end is unchanged.

    The extra devices move as :func:`_devices_moved` says; the dropped ones are refunded at
    the old tariff's device price prorated to the days left (nothing from a daily tariff).
    """
    left = end - now
    remaining = max(0, left.days)
    personal = b.personal_percent
    new_end: datetime | None = None
    numerator = 0
    if new.is_daily:
        base = 0 if cur.is_daily else max(0, new.daily_price_kopeks)
        percent = group_percent(b.group, "period", days=remaining or DEFAULT_PERIOD_DAYS)
        new_end = now + DAY
    elif cur.is_daily:
        days, base = new.shortest() or (DEFAULT_PERIOD_DAYS, 0)
        percent = group_percent(b.group, "period", days=days)
        new_end = now + timedelta(days=days)
    else:
        cur_p, cur_d = _rate(cur)
        new_p, new_d = _rate(new)
        numerator = (new_p * cur_d - cur_p * new_d) * remaining
        base = numerator // (new_d * cur_d) if numerator > 0 else 0
        percent = closest_period_percent(b.group, cur.periods(), remaining) if base else 0
    quote = finish([_line("switch", base, percent if base else 0)], personal if base else 0)
    upgrade = numerator > 0 if new_end is None else quote.final_kopeks > 0
    limit, carried, dropped = _devices_moved(cur, new, device_limit)
    refund = 0
    if dropped and not cur.is_daily and left > timedelta(0):
        refund = cur.device_unit_price() * dropped * add_on_days_left(end, now) // 30
    return SwitchQuote(
        is_upgrade=upgrade,
        remaining_days=remaining,
        base_cost_kopeks=base,
        quote=quote,
        new_end=new_end,
        daily_charge_at=now if new.is_daily else None,
        device_limit=limit,
        devices_carried=carried,
        devices_dropped=dropped,
        refund_kopeks=refund,
    )


def _rate(t: TariffTerms) -> tuple[int, int]:
    """A tariff's daily rate as ``(price, days)`` of its shortest period (``(0, 1)`` without)."""
    shortest = t.shortest()
    if shortest is None or shortest[0] <= 0:
        return 0, 1
    days, price = shortest
    return price, days

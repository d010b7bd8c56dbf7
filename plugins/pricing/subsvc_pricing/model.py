"""What the engine prices and what it answers: frozen snapshots of the buyer, a tariff and the
classic tables, and quotes made of lines. Amounts are integer kopeks, percents 0..100."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

__all__ = [
    "Buyer",
    "Category",
    "ClassicSelection",
    "ClassicTables",
    "GroupDiscounts",
    "Line",
    "LineKind",
    "PeriodPrice",
    "PersonalDiscount",
    "PricingError",
    "Quote",
    "ServerOffer",
    "SwitchQuote",
    "TariffTerms",
]

Category = Literal["period", "servers", "traffic", "devices"]
LineKind = Literal["period", "devices", "traffic", "custom_traffic", "servers", "daily", "switch", "package"]
DEFAULT_PERIOD_DAYS = 30


class PricingError(ValueError):
    """A selection that cannot be priced; the message is the reference's text, answered with
    ``status`` (400, 403 or 404) and a machine ``code``."""

    def __init__(self, message: str, status: int = 400, code: str = "invalid_selection") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


@dataclass(frozen=True)
class GroupDiscounts:
    """The buyer's promo group (else the default group): ``period`` ``{days: percent}``, the
    flat add-on percents, and for the default group only the settings' period table."""

    group_id: int | None = None
    is_default: bool = False
    period: Mapping[int, int] = field(default_factory=dict)
    servers: int = 0
    traffic: int = 0
    devices: int = 0
    apply_to_addons: bool = True
    base_period: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PersonalDiscount:
    """The buyer's one-shot personal discount (a claimed promo offer or a discount code)."""

    percent: int
    source: Literal["promo_offer", "promocode"]
    expires_at: datetime | None


@dataclass(frozen=True)
class Buyer:
    """Who buys: a user (``None`` for a guest), their group's discounts, their personal
    discount while it holds, and their balance."""

    user_id: int | None
    promo_group_id: int | None
    group: GroupDiscounts
    personal: PersonalDiscount | None = None
    balance_kopeks: int = 0

    @property
    def personal_percent(self) -> int:
        return self.personal.percent if self.personal is not None else 0


@dataclass(frozen=True)
class TariffTerms:
    """A tariff as the engine prices it (a snapshot of its row and its promo groups).

    ``period_prices``: ``{days: kopeks}``, a negative price is a disabled period. A tariff
    without a device price of its own charges ``default_device_price_kopeks`` (the
    ``PRICE_PER_DEVICE`` setting) and is capped by ``default_max_devices`` (the
    ``MAX_DEVICES_LIMIT`` setting, 0 = no cap) instead of ``max_device_limit``.
    """

    id: int
    name: str
    is_active: bool
    tier_level: int
    is_trial_available: bool
    period_prices: Mapping[int, int]
    traffic_limit_gb: int
    device_limit: int
    device_price_kopeks: int | None
    max_device_limit: int | None
    is_daily: bool
    daily_price_kopeks: int
    custom_days_enabled: bool
    price_per_day_kopeks: int
    min_days: int
    max_days: int
    custom_traffic_enabled: bool
    traffic_price_per_gb_kopeks: int
    min_traffic_gb: int
    max_traffic_gb: int
    traffic_topup_enabled: bool
    traffic_topup_packages: Mapping[int, int]
    max_topup_traffic_gb: int
    allowed_squads: tuple[str, ...]
    external_squad_uuid: str | None
    promo_group_ids: frozenset[int]
    default_device_price_kopeks: int = 10000
    default_max_devices: int = 0

    def open_to(self, promo_group_id: int | None) -> bool:
        """May a member of the group buy it (a tariff without groups is open to every one)?"""
        return not self.promo_group_ids or promo_group_id in self.promo_group_ids

    def periods(self) -> tuple[int, ...]:
        """The enabled periods (a price of 0 or more), shortest first."""
        return tuple(sorted(days for days, price in self.period_prices.items() if price >= 0))

    def shortest(self) -> tuple[int, int] | None:
        """``(days, price)`` of the shortest enabled period."""
        periods = self.periods()
        return (periods[0], self.period_prices[periods[0]]) if periods else None

    def device_unit_price(self) -> int:
        """Kopeks a month of one device above the included ones."""
        return (
            self.default_device_price_kopeks if self.device_price_kopeks is None else self.device_price_kopeks
        )

    def device_cap(self) -> int | None:
        """The most devices a subscription of it may have (``None``: no cap)."""
        if self.device_price_kopeks is not None:
            return self.max_device_limit
        return self.default_max_devices or None


@dataclass(frozen=True)
class ClassicTables:
    """Classic mode's prices (settings): periods, renewal periods, traffic tiers a month
    (0 = unlimited), the traffic selection, top-up packages and devices."""

    period_prices: Mapping[int, int]
    renewal_periods: tuple[int, ...]
    traffic_prices: Mapping[int, int]
    traffic_selectable: bool
    fixed_traffic_gb: int
    traffic_packages: Mapping[int, int]
    price_per_device: int
    default_device_limit: int
    max_devices: int


@dataclass(frozen=True)
class ClassicSelection:
    """A classic subscription: period, traffic (0 = unlimited; ``purchased_traffic_gb`` of it
    bought on top, priced as a tier of its own), squads and devices."""

    period_days: int
    traffic_gb: int
    squads: tuple[str, ...]
    devices: int
    purchased_traffic_gb: int = 0


@dataclass(frozen=True)
class ServerOffer:
    """A server (squad) as a buyer sees it: its monthly price and whether it can be bought."""

    uuid: str
    name: str
    country_code: str | None
    price_kopeks: int
    is_available: bool
    is_full: bool
    open_to_group: bool


@dataclass(frozen=True)
class Line:
    """One component of a price: before and after its group discount."""

    kind: LineKind
    original_kopeks: int
    percent: int
    final_kopeks: int


@dataclass(frozen=True)
class Quote:
    """A price: its lines (each with its group discount), the personal percent applied to
    their subtotal, and what is charged (never below 0). ``months`` is the period's months
    (``months_of(days)``) when it has days."""

    lines: tuple[Line, ...]
    personal_percent: int
    final_kopeks: int
    days: int = 0
    months: int = 0

    @property
    def subtotal_kopeks(self) -> int:
        """After the group discounts, before the personal one."""
        return sum(line.final_kopeks for line in self.lines)

    @property
    def group_discount_kopeks(self) -> int:
        return sum(line.original_kopeks - line.final_kopeks for line in self.lines)

    @property
    def personal_discount_kopeks(self) -> int:
        return max(0, self.subtotal_kopeks - self.final_kopeks)

    @property
    def original_kopeks(self) -> int:
        """Before any discount: final + group discount + personal discount."""
        return self.final_kopeks + self.group_discount_kopeks + self.personal_discount_kopeks

    @property
    def discount_kopeks(self) -> int:
        """What the discounts took off: original - final."""
        return self.original_kopeks - self.final_kopeks

    @property
    def discount_percent(self) -> int:
        """``int((original - final) * 100 / original)``; 0 for a free price."""
        original = self.original_kopeks
        return self.discount_kopeks * 100 // original if original > 0 else 0

    @property
    def uses_personal(self) -> bool:
        """The personal discount took something off: the debit must consume it."""
        return self.personal_percent > 0 and self.personal_discount_kopeks > 0

    def line(self, kind: LineKind) -> Line | None:
        """The first line of a kind."""
        return next((line for line in self.lines if line.kind == kind), None)


@dataclass(frozen=True)
class PeriodPrice:
    """A period on offer at the buyer's price."""

    days: int
    months: int
    price_kopeks: int
    original_price_kopeks: int
    discount_percent: int
    price_per_month_kopeks: int


@dataclass(frozen=True)
class SwitchQuote:
    """A tariff switch priced (§2.3 of the notes) and what it does to the subscription.

    ``new_end`` is the new end (``None``: unchanged), ``daily_charge_at`` the daily charge's
    start when the new tariff is daily. Extra devices bought above the old tariff's included
    ones are carried up to the new tariff's cap; those that do not fit are dropped and
    refunded (``refund_kopeks``, prorated to the days left).
    """

    is_upgrade: bool
    remaining_days: int
    base_cost_kopeks: int
    quote: Quote
    new_end: datetime | None
    daily_charge_at: datetime | None
    device_limit: int
    devices_carried: int
    devices_dropped: int
    refund_kopeks: int

"""The engine, table-driven: every case cites the formula of the notes it checks
(``../shared/reference/behaviours-money.md``; §1.2 discounts, §1.3 prices and proration,
§2.2 operations, §2.3 the tariff switch). Pure functions: no app, no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from subsvc_pricing.api import (
    Buyer,
    ClassicSelection,
    ClassicTables,
    GroupDiscounts,
    Line,
    PersonalDiscount,
    PricingError,
    Quote,
    TariffTerms,
    add_on_days_left,
    apply_discount,
    classic_purchase,
    classic_renewal_periods,
    closest_period_percent,
    daily_charge,
    devices_addon,
    finish,
    group_percent,
    months_of,
    price_label,
    price_per_month,
    prorate,
    servers_addon,
    tariff_periods,
    tariff_purchase,
    tariff_renewal,
    tariff_switch,
    tier_price,
    traffic_package,
    traffic_package_switch,
)

NOW = datetime(2030, 3, 1, 12, 0, tzinfo=UTC)
NOBODY = GroupDiscounts()


def tariff(**fields: Any) -> TariffTerms:
    values: dict[str, Any] = {
        "id": 1,
        "name": "Base",
        "is_active": True,
        "tier_level": 1,
        "is_trial_available": False,
        "period_prices": {30: 30000, 90: 81000, 180: 150000},
        "traffic_limit_gb": 100,
        "device_limit": 2,
        "device_price_kopeks": 5000,
        "max_device_limit": 5,
        "is_daily": False,
        "daily_price_kopeks": 0,
        "custom_days_enabled": False,
        "price_per_day_kopeks": 0,
        "min_days": 1,
        "max_days": 365,
        "custom_traffic_enabled": False,
        "traffic_price_per_gb_kopeks": 0,
        "min_traffic_gb": 1,
        "max_traffic_gb": 1000,
        "traffic_topup_enabled": False,
        "traffic_topup_packages": {},
        "max_topup_traffic_gb": 0,
        "allowed_squads": ("sq-a",),
        "external_squad_uuid": None,
        "promo_group_ids": frozenset(),
    }
    return TariffTerms(**{**values, **fields})


def buyer(group: GroupDiscounts = NOBODY, personal: int = 0, promo_group_id: int | None = None) -> Buyer:
    offer = PersonalDiscount(percent=personal, source="promo_offer", expires_at=None) if personal else None
    return Buyer(user_id=1, promo_group_id=promo_group_id, group=group, personal=offer)


CLASSIC = ClassicTables(
    period_prices={14: 7000, 30: 9900, 60: 18900, 90: 26900},
    renewal_periods=(30, 90, 180),
    traffic_prices={5: 2000, 10: 3500, 25: 7000, 0: 20000},
    traffic_selectable=True,
    fixed_traffic_gb=10,
    traffic_packages={5: 5000, 10: 9000},
    price_per_device=10000,
    default_device_limit=1,
    max_devices=5,
)


# --- §1.2 apply_discount: amount - floor(amount*pct/100), pct clamped to 0..100 --------------


@pytest.mark.parametrize(
    ("amount", "percent", "expected"),
    [
        (10000, 10, 9000),  # §1.2 plain
        (99900, 15, 84915),  # §1.2 floor of the discount, no round-up to the ruble (tariffs' old rule: 85000)
        (150, 10, 135),  # §1.2
        (199, 50, 100),  # §1.2 floor(99.5) = 99 off (the old rule rounded 100 up: the same here)
        (333, 33, 224),  # §1.2 floor(109.89) = 109 off
        (1, 99, 1),  # §1.2 floor(0.99) = 0 off
        (10000, 100, 0),  # §1.2 clamp: 100 %
        (10000, 150, 0),  # §1.2 clamp: above 100 is 100
        (10000, -5, 10000),  # §1.2 clamp: below 0 is 0
        (0, 50, 0),  # §1.2 nothing to discount
    ],
)
def test_apply_discount(amount, percent, expected):
    assert apply_discount(amount, percent) == expected


# --- §1.3 months = max(1, round(days/30)), banker's rounding ------------------------------------


@pytest.mark.parametrize(
    ("days", "months"),
    [
        (1, 1),
        (14, 1),
        (15, 1),
        (30, 1),
        (44, 1),
        (45, 2),
        (60, 2),
        (75, 2),
        (90, 3),
        (105, 4),
        (180, 6),
        (360, 12),
    ],
)
def test_months_of(days, months):
    assert months_of(days) == months  # §1.3: 15 -> round(0.5)=0 -> 1; 45 -> 2; 75 -> round(2.5)=2; 105 -> 4


@pytest.mark.parametrize(
    ("price", "days", "expected"),
    [(9900, 30, 9900), (26900, 90, 8967), (49900, 180, 8317), (15, 60, 8), (25, 60, 12), (7000, 14, 15000)],
)
def test_price_per_month(price, days, expected):
    assert (
        price_per_month(price, days) == expected
    )  # §2.2 purchase-options: round(price*30/days), half to even


def test_price_label():
    assert [price_label(k) for k in (0, 100, 150000, 150050, 123456789)] == [
        "0 ₽",
        "1 ₽",
        "1 500 ₽",
        "1 500.50 ₽",
        "1 234 567.89 ₽",
    ]


# --- §1.2 group percents ---------------------------------------------------------------------------

VIP = GroupDiscounts(
    group_id=2, period={30: 10, 90: 20}, servers=5, traffic=0, devices=15, apply_to_addons=True
)
DEFAULT = GroupDiscounts(group_id=1, is_default=True, period={30: 7}, base_period={90: 12, 30: 99}, devices=0)


@pytest.mark.parametrize(
    ("group", "category", "days", "addon", "expected"),
    [
        (VIP, "period", 30, False, 10),  # §1.2 period: exact days
        (VIP, "period", 60, False, 0),  # §1.2 period: no entry for 60 days
        (VIP, "devices", 60, False, 15),  # §1.2 flat add-on percent
        (VIP, "traffic", 30, False, 0),  # §1.2 a non-default group's 0 stays 0
        (replace(VIP, apply_to_addons=False), "devices", 30, True, 0),  # §1.2 add-ons only with the flag
        (
            replace(VIP, apply_to_addons=False),
            "devices",
            30,
            False,
            15,
        ),  # §1.2 a purchase's line: no flag needed
        (DEFAULT, "period", 30, False, 7),  # §1.2 the group's own entry wins over the settings' table
        (DEFAULT, "period", 90, False, 12),  # §1.2 default group: missing period -> the settings' table
        (DEFAULT, "devices", 90, False, 12),  # §1.2 default group: 0 add-on -> the period percent
        (DEFAULT, "servers", None, False, 0),  # §1.2 no period to fall back to
        (GroupDiscounts(period={30: 250}), "period", 30, False, 100),  # §1.2 clamped
    ],
)
def test_group_percent(group, category, days, addon, expected):
    assert group_percent(group, category, days=days, addon=addon) == expected


@pytest.mark.parametrize(
    ("periods", "remaining", "expected"),
    [((30, 90, 180), 70, 20), ((30, 90, 180), 59, 10), ((30, 90), 60, 10), ((), 25, 10)],
)
def test_closest_period_percent(periods, remaining, expected):
    # §2.3: the group percent of the current tariff's period closest to the remaining days
    # (60 is as close to 30 as to 90: the shorter; none: 30 days)
    assert closest_period_percent(VIP, periods, remaining) == expected


# --- §1.2 stacking and the quote's figures -------------------------------------------------------


def test_stacking_group_per_line_then_personal_on_the_subtotal():
    lines = [Line("period", 30000, 10, 27000), Line("devices", 5000, 15, 4250)]
    quote = finish(lines, 20, days=30)
    # §1.2: subtotal 31250, the offer takes floor(6250) -> 25000
    assert (quote.subtotal_kopeks, quote.final_kopeks) == (31250, 25000)
    assert (quote.group_discount_kopeks, quote.personal_discount_kopeks) == (3750, 6250)
    assert quote.original_kopeks == 35000 == 25000 + 3750 + 6250  # §1.2 original = final + group + offer
    assert quote.discount_percent == 28  # §1.3 int(10000 * 100 / 35000) = int(28.57)
    assert quote.uses_personal and (quote.days, quote.months) == (30, 1)


def test_discount_percent_truncates_and_a_free_price_has_none():
    assert finish([Line("period", 300, 0, 200)], 0).discount_percent == 33  # §1.3 int(33.3)
    assert finish([Line("period", 0, 50, 0)], 50).discount_percent == 0
    assert not finish([Line("period", 0, 0, 0)], 50).uses_personal  # nothing taken off: nothing to consume


# --- §1.3 tariff mode --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "who", "days", "devices", "traffic", "final", "lines"),
    [
        # §1.3 base = period_prices[days]
        ({}, buyer(), 30, None, None, 30000, [("period", 30000, 0, 30000)]),
        # §1.3 base with the period percent of the group (tariff open to every group)
        ({}, buyer(VIP), 90, None, None, 64800, [("period", 81000, 20, 64800)]),
        # §1.3 extra devices = (limit - included) * device price * months (90 d = 3 months), devices percent
        (
            {},
            buyer(VIP),
            90,
            4,
            None,
            64800 + 25500,
            [("period", 81000, 20, 64800), ("devices", 30000, 15, 25500)],
        ),
        # §1.3 no device price of its own -> PRICE_PER_DEVICE (the default 10000 here); 45 days = 2 months
        (
            {"device_price_kopeks": None, "period_prices": {45: 40000}},
            buyer(),
            45,
            3,
            None,
            60000,
            [("period", 40000, 0, 40000), ("devices", 20000, 0, 20000)],
        ),
        # §1.3 fewer devices than included cost nothing
        ({}, buyer(), 30, 1, None, 30000, [("period", 30000, 0, 30000)]),
        # §1.3 custom days: price_per_day * days when the period is not a priced one
        (
            {"custom_days_enabled": True, "price_per_day_kopeks": 1100, "min_days": 7, "max_days": 60},
            buyer(),
            40,
            None,
            None,
            44000,
            [("period", 44000, 0, 44000)],
        ),
        # §1.3 daily tariff: the daily price, devices without the months factor
        (
            {"is_daily": True, "daily_price_kopeks": 1500, "period_prices": {}},
            buyer(VIP),
            30,
            3,
            None,
            5750,
            [("daily", 1500, 0, 1500), ("devices", 5000, 15, 4250)],
        ),
        # §1.3 custom traffic: price_per_gb * gb with the add-on traffic percent (VIP: 0)
        (
            {"custom_traffic_enabled": True, "traffic_price_per_gb_kopeks": 300, "min_traffic_gb": 10},
            buyer(VIP),
            30,
            None,
            50,
            27000 + 15000,
            [("period", 30000, 10, 27000), ("custom_traffic", 15000, 0, 15000)],
        ),
        # §1.3 custom traffic asked of a tariff without it: not priced
        ({}, buyer(), 30, None, 50, 30000, [("period", 30000, 0, 30000)]),
        # §1.3 group discounts only when the tariff is open to the buyer's group
        (
            {"promo_group_ids": frozenset({9})},
            buyer(VIP, promo_group_id=2),
            30,
            None,
            None,
            30000,
            [("period", 30000, 0, 30000)],
        ),
        (
            {"promo_group_ids": frozenset({2})},
            buyer(VIP, promo_group_id=2),
            30,
            None,
            None,
            27000,
            [("period", 30000, 10, 27000)],
        ),
        # §1.2 the offer on the subtotal: 27000 - floor(27000*15/100)
        ({}, buyer(VIP, personal=15), 30, None, None, 22950, [("period", 30000, 10, 27000)]),
        # §1.3 final clamp >= 0 and a free period
        ({"period_prices": {30: 0}}, buyer(personal=50), 30, None, None, 0, [("period", 0, 0, 0)]),
    ],
)
def test_tariff_purchase(terms, who, days, devices, traffic, final, lines):
    quote = tariff_purchase(tariff(**terms), who, days=days, device_limit=devices, traffic_gb=traffic)
    assert quote.final_kopeks == final
    assert [(x.kind, x.original_kopeks, x.percent, x.final_kopeks) for x in quote.lines] == lines


@pytest.mark.parametrize(
    ("terms", "days", "traffic", "message"),
    [
        ({}, 60, None, "Selected period is not available for this tariff"),  # §2.2 purchase-tariff
        (
            {"period_prices": {30: -1}},
            30,
            None,
            "Selected period is not available for this tariff",
        ),  # negative = off
        (
            {"custom_days_enabled": True, "price_per_day_kopeks": 100, "min_days": 7, "max_days": 60},
            61,
            None,
            "Selected period is not available for this tariff",
        ),
        (
            {"custom_traffic_enabled": True, "min_traffic_gb": 10, "max_traffic_gb": 100},
            30,
            5,
            "Traffic must be between 10 and 100 GB for this tariff",
        ),
        (
            {"custom_traffic_enabled": True, "min_traffic_gb": 10, "max_traffic_gb": 100},
            30,
            101,
            "Traffic must be between 10 and 100 GB for this tariff",
        ),
    ],
)
def test_tariff_purchase_refusals(terms, days, traffic, message):
    with pytest.raises(PricingError) as refused:
        tariff_purchase(tariff(**terms), buyer(), days=days, traffic_gb=traffic)
    assert (refused.value.message, refused.value.status) == (message, 400)


def test_renewal_is_priced_like_the_purchase_with_the_subscriptions_devices():
    t = tariff()
    # §1.3 renewal: the same formula; 180 days = 6 months of 2 extra devices at 5000
    assert tariff_renewal(t, buyer(), days=180, device_limit=4).final_kopeks == 150000 + 2 * 5000 * 6


def test_periods_of_a_tariff_at_the_buyers_prices():
    periods = tariff_periods(tariff(period_prices={90: 81000, 30: 30000, 7: -1}), buyer(VIP))
    # §2.2 purchase-options: enabled periods only, price_per_month = round(price*30/days)
    assert [
        (p.days, p.months, p.price_kopeks, p.original_price_kopeks, p.discount_percent) for p in periods
    ] == [
        (30, 1, 27000, 30000, 10),
        (90, 3, 64800, 81000, 20),
    ]
    assert [p.price_per_month_kopeks for p in periods] == [27000, 21600]
    daily = tariff_periods(tariff(is_daily=True, daily_price_kopeks=900), buyer())
    assert [(p.days, p.price_kopeks) for p in daily] == [(1, 900)]


@pytest.mark.parametrize(
    ("personal", "expected"),
    [(True, 1440 - 1440 * 20 // 100), (False, 1440)],
)
def test_daily_charge(personal, expected):
    group = GroupDiscounts(period={1: 4})
    t = tariff(is_daily=True, daily_price_kopeks=1500)
    # §2.2: the daily price after the group's period percent for 1 day (1500 -> 1440), then
    # the offer unless it is a resume
    assert daily_charge(t, buyer(group, personal=20), personal=personal).final_kopeks == expected


# --- §1.3 classic mode -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selection", "who", "final", "parts"),
    [
        # §1.3 period price + servers per month * months + traffic tier * months + extra devices
        (ClassicSelection(30, 10, ("sq-a", "sq-b"), 1), buyer(), 9900 + 6000 + 3500, (9900, 6000, 3500, 0)),
        # §1.3 unknown squads cost 0; 90 days = 3 months; 2 devices above 1 included
        (
            ClassicSelection(90, 5, ("sq-a", "ghost"), 3),
            buyer(),
            26900 + 3 * 1000 + 3 * 2000 + 2 * 10000 * 3,
            (26900, 3000, 6000, 60000),
        ),
        # §1.3 0 GB = the unlimited tier; 14 days = 1 month
        (ClassicSelection(14, 0, ("sq-b",), 1), buyer(), 7000 + 5000 + 20000, (7000, 5000, 20000, 0)),
        # §1.3 each component with its own group percent, then the offer on the subtotal
        (
            ClassicSelection(30, 10, ("sq-a",), 2),
            buyer(GroupDiscounts(period={30: 10}, servers=50, traffic=20, devices=0), personal=10),
            apply_discount(8910 + 500 + 2800 + 10000, 10),
            (8910, 500, 2800, 10000),
        ),
    ],
)
def test_classic_purchase(selection, who, final, parts):
    prices = {"sq-a": 1000, "sq-b": 5000}
    quote = classic_purchase(CLASSIC, prices, who, selection)
    assert quote.final_kopeks == final
    assert tuple(x.final_kopeks for x in quote.lines) == parts
    assert [x.kind for x in quote.lines] == ["period", "servers", "traffic", "devices"]


def test_classic_fixed_traffic_forces_the_fixed_limit():
    tables = replace(CLASSIC, traffic_selectable=False)
    # §1.3 fixed-traffic mode forces the fixed limit (10 GB: 3500), whatever is selected
    quote = classic_purchase(tables, {}, buyer(), ClassicSelection(30, 999, ("sq-a",), 1))
    assert quote.line("traffic") == Line("traffic", 3500, 0, 3500)


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        (
            ClassicSelection(45, 10, ("sq-a",), 1),
            "Invalid or missing subscription period",
        ),  # §2.2 preview texts
        (ClassicSelection(30, 7, ("sq-a",), 1), "Selected traffic option is not available"),
        (ClassicSelection(30, 10, (), 1), "Select at least one server"),
        (ClassicSelection(30, 10, ("sq-a",), 6), "Invalid devices selection"),
        (ClassicSelection(30, 10, ("sq-a",), 0), "Invalid devices selection"),
    ],
)
def test_classic_refusals(selection, message):
    with pytest.raises(PricingError, match=message):
        classic_purchase(CLASSIC, {}, buyer(), selection)


@pytest.mark.parametrize(
    ("gb", "expected"),
    [(5, 2000), (0, 20000), (7, 3500), (11, 7000), (26, 20000), (-1, 20000)],
)
def test_tier_price(gb, expected):
    # §1.3 traffic tiers: exact tier; 0 = unlimited; between tiers the next one up; beyond the
    # largest the unlimited tier
    assert tier_price(CLASSIC.traffic_prices, gb) == expected


def test_classic_renewal_prices_the_purchased_traffic_as_a_tier_of_its_own():
    current = ClassicSelection(30, 15, ("sq-a",), 1, purchased_traffic_gb=5)
    periods = classic_renewal_periods(CLASSIC, {"sq-a": 1000}, buyer(), current)
    # §1.3 traffic = tier(base 10 GB) + tier(purchased 5 GB) a month; 180 days is not in the table
    assert [(p.days, p.price_kopeks) for p in periods] == [
        (30, 9900 + 1000 + 3500 + 2000),
        (90, 26900 + 3 * (1000 + 3500 + 2000)),
    ]


def test_classic_renewal_drops_free_periods():
    tables = replace(CLASSIC, period_prices={30: 0}, traffic_prices={}, renewal_periods=(30,))
    # §2.2 renewal-options: options with both final and original price 0 are dropped
    assert classic_renewal_periods(tables, {}, buyer(), ClassicSelection(30, 0, (), 1)) == []


# --- §1.3 proration of add-ons ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "days"),
    [
        (timedelta(days=15), 15),
        (timedelta(days=14, seconds=1), 15),  # ceil
        (timedelta(seconds=30), 1),
        (timedelta(days=-3), 1),  # at least 1
    ],
)
def test_add_on_days_left(left, days):
    assert add_on_days_left(NOW + left, NOW) == days  # §1.3 max(1, ceil(seconds/86400))


@pytest.mark.parametrize(
    ("monthly", "days", "expected"),
    [(3000, 15, 1500), (3000, 29, 2900), (3000, 1, 100), (100, 10, 100), (0, 10, 0), (31, 60, 100)],
)
def test_prorate(monthly, days, expected):
    # §1.3 monthly * days // 30, at least 100 kopeks when the monthly price is above 0
    assert prorate(monthly, NOW + timedelta(days=days), NOW) == expected


@pytest.mark.parametrize(
    ("unit", "devices", "days", "group", "expected"),
    [
        (5000, 2, 15, NOBODY, 5000),  # §2.2 int(5000*2*15/30)
        (5000, 1, 29, NOBODY, 4833),  # §2.2 int(4833.3)
        (5000, 1, 1, NOBODY, 166),  # §2.2 int(166.6)
        (200, 1, 1, NOBODY, 100),  # §2.2 floor 100 when chargeable (6 -> 100)
        (5000, 2, 15, GroupDiscounts(devices=10), 4500),  # §2.2 then the add-on devices percent
        (200, 1, 1, GroupDiscounts(devices=50), 100),  # §2.2 100 -> 50 -> floor 100
        (5000, 2, 15, GroupDiscounts(devices=100), 0),  # §2.2 ... unless 100 %
        (5000, 2, 15, GroupDiscounts(devices=10, apply_to_addons=False), 5000),  # §1.2 add-on flag
        (5000, 0, 15, NOBODY, 0),  # nothing chargeable
    ],
)
def test_devices_addon(unit, devices, days, group, expected):
    quote = devices_addon(unit, devices, buyer(group, personal=30), end=NOW + timedelta(days=days), now=NOW)
    assert quote.final_kopeks == expected and quote.personal_percent == 0  # add-ons take no offer


@pytest.mark.parametrize(
    ("price", "days", "group", "expected"),
    [
        (9000, None, NOBODY, 9000),  # §2.2 tariffs mode: the package price, not prorated
        (9000, None, GroupDiscounts(traffic=10), 8100),  # §2.2 the add-on traffic discount
        (150, None, GroupDiscounts(traffic=50), 100),  # §2.2 floor 100 when discounted
        (9000, 10, NOBODY, 3000),  # §2.2 classic: prorated to the days left
        (9000, 10, GroupDiscounts(traffic=10), 2700),  # §2.2 classic: prorated, then discounted
        (9000, None, GroupDiscounts(traffic=100), 0),  # 100 % off: nothing to floor
    ],
)
def test_traffic_package(price, days, group, expected):
    prorate_to = (NOW + timedelta(days=days), NOW) if days else None
    assert traffic_package(price, buyer(group), prorate_to=prorate_to).final_kopeks == expected


@pytest.mark.parametrize(
    ("current", "new", "group", "expected"),
    [
        (5000, 9000, NOBODY, 2000),  # §2.2 PUT /traffic: (9000-5000) prorated to 15 days
        (5000, 9000, GroupDiscounts(traffic=25), 1500),  # §2.2 discounted difference, prorated
        (9000, 5000, NOBODY, 0),  # §2.2 a downgrade is free, no refund
    ],
)
def test_traffic_package_switch(current, new, group, expected):
    quote = traffic_package_switch(current, new, buyer(group), end=NOW + timedelta(days=15), now=NOW)
    assert quote.final_kopeks == expected


def test_servers_addon():
    added = {"sq-a": 3000, "sq-b": 6000}
    # §2.2 POST /countries: monthly prices with the servers add-on percent, prorated (10 days)
    quote = servers_addon(added, buyer(GroupDiscounts(servers=10)), end=NOW + timedelta(days=10), now=NOW)
    assert (quote.original_kopeks, quote.final_kopeks) == (3000, 2700)
    assert servers_addon({}, buyer(), end=NOW + timedelta(days=10), now=NOW).final_kopeks == 0


def test_add_on_default_group_falls_back_to_the_period_of_the_days_left():
    group = GroupDiscounts(is_default=True, period={30: 8})
    # §1.2 default group: 0 devices percent -> the period percent of the hint (20 days ~ 1 month = 30)
    quote = devices_addon(3000, 1, buyer(group), end=NOW + timedelta(days=20), now=NOW)
    assert quote.line("devices") == Line("devices", 2000, 8, 1840)


# --- §2.3 tariff switch ------------------------------------------------------------------------------

CHEAP = tariff(id=1, period_prices={30: 30000, 90: 81000}, device_limit=1, device_price_kopeks=3000)
DEAR = tariff(id=2, period_prices={30: 60000, 180: 300000}, device_limit=2, max_device_limit=3)
DAILY = tariff(id=3, is_daily=True, daily_price_kopeks=2000, period_prices={}, device_limit=1)
DAILY2 = tariff(id=4, is_daily=True, daily_price_kopeks=5000, period_prices={}, device_limit=1)


@pytest.mark.parametrize(
    ("cur", "new", "left", "who", "cost", "upgrade", "new_end"),
    [
        # periodic -> periodic: floor((60000*30 - 30000*30) * 10 / (30*30)) = 10000; end unchanged
        (CHEAP, DEAR, timedelta(days=10, hours=5), buyer(), 10000, True, None),
        # ... the group percent of the current tariff's period closest to 10 days (30: 10 %), then the offer
        (CHEAP, DEAR, timedelta(days=10), buyer(VIP, personal=10), apply_discount(9000, 10), True, None),
        # numerator <= 0: a free downgrade, no refund
        (DEAR, CHEAP, timedelta(days=10), buyer(VIP), 0, False, None),
        # nothing left: nothing to pay
        (CHEAP, DEAR, timedelta(hours=20), buyer(), 0, False, None),
        # periodic -> daily: the new daily price, the period percent of the days left (VIP: 30 -> 10 %)
        (CHEAP, DAILY, timedelta(days=30), buyer(VIP), 1800, True, timedelta(days=1)),
        # daily -> periodic: the new tariff's shortest period with its percent (30 d: 10 %), a new period
        (DAILY, CHEAP, timedelta(hours=5), buyer(VIP), 27000, True, timedelta(days=30)),
        # daily -> daily: free, a new day
        (DAILY, DAILY2, timedelta(hours=5), buyer(VIP, personal=50), 0, False, timedelta(days=1)),
    ],
)
def test_tariff_switch_cost(cur, new, left, who, cost, upgrade, new_end):
    quote = tariff_switch(cur, new, who, end=NOW + left, now=NOW, device_limit=cur.device_limit)
    assert (quote.quote.final_kopeks, quote.is_upgrade) == (cost, upgrade)
    assert quote.new_end == (NOW + new_end if new_end is not None else None)
    assert quote.daily_charge_at == (NOW if new.is_daily else None)
    assert quote.remaining_days == max(0, left.days)


def test_switch_with_a_shortest_period_rate_not_the_closest():
    # §2.3: each daily rate is the SHORTEST period's: DEAR 60000/30 vs CHEAP 30000/30, whatever
    # the remaining days (100 days would be closest to 90 and 180)
    quote = tariff_switch(CHEAP, DEAR, buyer(), end=NOW + timedelta(days=100), now=NOW, device_limit=1)
    assert quote.base_cost_kopeks == (60000 * 30 - 30000 * 30) * 100 // (30 * 30) == 100000


@pytest.mark.parametrize(
    ("devices", "limit", "carried", "dropped", "refund"),
    [
        (1, 2, 0, 0, 0),  # nothing above the old tariff's one included device
        (2, 3, 1, 0, 0),  # §3.9 one extra device carried on top of the new tariff's 2
        (4, 3, 1, 2, 2 * 3000 * 15 // 30),  # §3.9 the new cap is 3: two dropped, refunded prorated (15 days)
    ],
)
def test_switch_carries_extra_devices_up_to_the_cap(devices, limit, carried, dropped, refund):
    quote = tariff_switch(CHEAP, DEAR, buyer(), end=NOW + timedelta(days=15), now=NOW, device_limit=devices)
    assert (quote.device_limit, quote.devices_carried, quote.devices_dropped) == (limit, carried, dropped)
    assert quote.refund_kopeks == refund


def test_switch_without_a_device_price_takes_the_settings_cap():
    new = replace(DEAR, device_price_kopeks=None, max_device_limit=None, default_max_devices=0)
    quote = tariff_switch(CHEAP, new, buyer(), end=NOW + timedelta(days=15), now=NOW, device_limit=9)
    assert (quote.device_limit, quote.devices_dropped) == (10, 0)  # no cap at all
    capped = replace(new, default_max_devices=4)
    assert (
        tariff_switch(
            CHEAP, capped, buyer(), end=NOW + timedelta(days=15), now=NOW, device_limit=9
        ).device_limit
        == 4
    )


def test_a_quote_is_frozen():
    quote = finish([], 0)
    assert isinstance(quote, Quote) and quote.final_kopeks == 0
    with pytest.raises(AttributeError):
        quote.final_kopeks = 5  # type: ignore[misc]

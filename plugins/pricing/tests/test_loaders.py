"""The loaders against a real database (SQLite and PostgreSQL): promo groups, tariffs and
servers made through their APIs, then read as the engine prices them (``buyer_of``, ``guest``,
``tariff_terms``, ``server_prices``) and the settings' tables (``classic_tables``,
``sales_mode``)."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_pricing.api import (
    PricingSettings,
    buyer_of,
    classic_tables,
    guest,
    sales_mode,
    server_prices,
    tariff_terms,
)
from subsvc_servers.models import Server
from subsvc_subscriptions.api import SubscriptionSettings
from subsvc_users.models import User

from subsvc.testing import created, recorded_statements

TARIFFS = "/cabinet/admin/tariffs"


@pytest.fixture
def make_group(client):
    async def make(name: str, **fields: Any) -> dict[str, Any]:
        return await created(client, "/promo-groups", {"name": name, **fields})

    return make


@pytest.fixture
def make_server(client):
    async def make(squad: str, **fields: Any) -> dict[str, Any]:
        return await created(client, "/servers", {"squadUuid": squad, "displayName": squad.upper(), **fields})

    return make


@pytest.fixture
def make_tariff(admin):
    async def make(name: str, **fields: Any) -> dict[str, Any]:
        response = await admin.post(TARIFFS, json={"name": name, **fields})
        assert response.status_code == 200, response.text
        return response.json()

    return make


async def _set(db, model, row_id: int, **values: Any) -> None:
    async with db.session() as session:
        row = await session.get(model, row_id)
        for name, value in values.items():
            setattr(row, name, value)
        await session.commit()


# --- buyer_of, guest -----------------------------------------------------------------------------


async def test_a_buyer_has_their_groups_discounts_and_balance_read_in_one_query(
    app, db, make_group, api_user
):
    await make_group("Base", is_default=True)
    vip = await make_group(
        "VIP",
        period_discounts={"30": 10, "90": 25},
        server_discount_percent=5,
        traffic_discount_percent=6,
        device_discount_percent=7,
        apply_discounts_to_addons=False,
    )
    user = await api_user(promo_group_id=vip["id"])
    await _set(db, User, user["id"], balance_kopeks=12_345)
    async with db.session() as session:
        with recorded_statements(db) as statements:
            buyer = await buyer_of(app, session, user["id"])
    assert len(statements) == 1  # no plugin here grants personal discounts
    assert buyer is not None
    assert (buyer.user_id, buyer.promo_group_id, buyer.balance_kopeks, buyer.personal) == (
        user["id"],
        vip["id"],
        12_345,
        None,
    )
    group = buyer.group
    assert (group.group_id, group.is_default, group.period) == (vip["id"], False, {30: 10, 90: 25})
    assert (group.servers, group.traffic, group.devices, group.apply_to_addons) == (5, 6, 7, False)
    assert group.base_period == {}


async def test_a_buyer_without_a_group_has_the_default_groups_with_the_settings_table(
    app, db, make_group, api_user, change_settings
):
    base = await make_group("Base", is_default=True, period_discounts={"30": 3})
    user = await api_user()
    await _set(db, User, user["id"], promo_group_id=None)
    change_settings(
        PricingSettings,
        BASE_PROMO_GROUP_PERIOD_DISCOUNTS_ENABLED=True,
        BASE_PROMO_GROUP_PERIOD_DISCOUNTS={60: 8},
    )
    async with db.session() as session:
        buyer = await buyer_of(app, session, user["id"])
    assert buyer is not None and buyer.promo_group_id == base["id"]
    assert (buyer.group.group_id, buyer.group.is_default) == (base["id"], True)
    assert (buyer.group.period, buyer.group.base_period) == ({30: 3}, {60: 8})

    change_settings(PricingSettings, BASE_PROMO_GROUP_PERIOD_DISCOUNTS_ENABLED=False)
    async with db.session() as session:
        buyer = await buyer_of(app, session, user["id"])
    assert buyer is not None and buyer.group.base_period == {}


async def test_no_such_user_is_no_buyer(app, db, api_user):
    user = await api_user()
    async with db.session() as session:
        assert await buyer_of(app, session, user["id"] + 1000) is None
        assert await buyer_of(app, session, 2**31) is None  # beyond the column: no query
        assert await buyer_of(app, session, -1) is None


async def test_a_guest_has_the_group_given_else_the_default_one(app, db, make_group):
    base = await make_group("Base", is_default=True, period_discounts={"30": 1})
    promo = await make_group("Promo", period_discounts={"30": 20}, device_discount_percent=4)
    async with db.session() as session:
        as_promo = await guest(app, session, promo["id"])
        as_default = await guest(app, session)
        unknown = await guest(app, session, promo["id"] + 1000)
        huge = await guest(app, session, 2**40)
    assert (as_promo.user_id, as_promo.promo_group_id, as_promo.personal, as_promo.balance_kopeks) == (
        None,
        promo["id"],
        None,
        0,
    )
    assert (as_promo.group.period, as_promo.group.devices) == ({30: 20}, 4)
    for buyer in (as_default, unknown, huge):
        assert (buyer.promo_group_id, buyer.group.period, buyer.group.is_default) == (
            base["id"],
            {30: 1},
            True,
        )


async def test_a_guest_without_any_group_has_no_discounts(app, db):
    async with db.session() as session:
        buyer = await guest(app, session)
    assert buyer.promo_group_id is None
    assert (buyer.group.group_id, buyer.group.period, buyer.group.servers) == (None, {}, 0)


# --- tariff_terms --------------------------------------------------------------------------------


async def test_tariff_terms_are_the_tariffs_in_display_order_with_their_groups(
    app, db, make_group, make_server, make_tariff, change_settings
):
    group = await make_group("G")
    other = await make_group("H")
    await make_server("sq-a")
    first = await make_tariff(
        "Basic",
        period_prices=[{"days": 30, "price_kopeks": 10_000}, {"days": 90, "price_kopeks": 27_000}],
        device_limit=2,
        device_price_kopeks=5_000,
        max_device_limit=5,
        traffic_limit_gb=50,
        allowed_squads=["sq-a"],
        promo_group_ids=[group["id"], other["id"]],
        custom_traffic_enabled=True,
        traffic_price_per_gb_kopeks=300,
        min_traffic_gb=10,
        max_traffic_gb=200,
    )
    second = await make_tariff("Daily", is_daily=True, daily_price_kopeks=700, tier_level=2)
    hidden = await make_tariff("Old", is_active=False, period_prices=[{"days": 30, "price_kopeks": 1}])
    change_settings(PricingSettings, PRICE_PER_DEVICE=4_200)
    change_settings(SubscriptionSettings, MAX_DEVICES_LIMIT=9)

    async with db.session() as session:
        with recorded_statements(db) as statements:
            active = await tariff_terms(app, session)
        everything = await tariff_terms(app, session, active_only=False)
        chosen = await tariff_terms(app, session, [second["id"], hidden["id"]], active_only=False)
        nothing = await tariff_terms(app, session, [2**40, -5])
        none_asked = await tariff_terms(app, session, [])
    assert len(statements) == 2
    assert [t.id for t in active] == [first["id"], second["id"]]
    assert [t.id for t in everything] == [first["id"], second["id"], hidden["id"]]
    assert [t.id for t in chosen] == [second["id"], hidden["id"]]
    assert nothing == [] and none_asked == []

    basic, daily = active
    assert (basic.name, basic.is_active, basic.period_prices) == ("Basic", True, {30: 10_000, 90: 27_000})
    assert (basic.device_limit, basic.device_price_kopeks, basic.max_device_limit) == (2, 5_000, 5)
    assert (basic.traffic_limit_gb, basic.allowed_squads) == (50, ("sq-a",))
    assert basic.promo_group_ids == frozenset({group["id"], other["id"]})
    assert (basic.custom_traffic_enabled, basic.traffic_price_per_gb_kopeks) == (True, 300)
    assert (basic.min_traffic_gb, basic.max_traffic_gb) == (10, 200)
    assert (basic.default_device_price_kopeks, basic.default_max_devices) == (4_200, 9)
    assert (daily.is_daily, daily.daily_price_kopeks, daily.tier_level) == (True, 700, 2)
    assert daily.promo_group_ids == frozenset()
    assert chosen[1].is_active is False


# --- server_prices -------------------------------------------------------------------------------


async def test_server_prices_say_what_each_group_may_buy_in_one_query(app, db, make_group, make_server):
    vip = await make_group("VIP")
    other = await make_group("Other")
    await make_server("sq-open", priceKopeks=10_000, sortOrder=2, countryCode="NL")
    restricted = await make_server(
        "sq-vip", priceKopeks=20_000, sortOrder=1, promoGroupIds=[vip["id"]], maxUsers=3
    )
    await make_server("sq-off", priceKopeks=5_000, sortOrder=3, isAvailable=False)
    await _set(db, Server, restricted["id"], current_users=3)

    async with db.session() as session:
        with recorded_statements(db) as statements:
            for_vip = await server_prices(session, vip["id"])
        for_other = await server_prices(session, other["id"])
        for_nobody = await server_prices(session, None)
        for_huge = await server_prices(session, 2**40)
        some = await server_prices(session, vip["id"], ["sq-off", "sq-open", "sq-open", "unknown"])
        none_asked = await server_prices(session, vip["id"], [])
    assert len(statements) == 1
    assert list(for_vip) == ["sq-vip", "sq-open", "sq-off"]  # display order
    offer = for_vip["sq-vip"]
    assert (offer.name, offer.price_kopeks, offer.is_available, offer.is_full, offer.open_to_group) == (
        "SQ-VIP",
        20_000,
        True,
        True,
        True,
    )
    assert (for_vip["sq-open"].country_code, for_vip["sq-open"].is_full) == ("NL", False)
    assert for_vip["sq-off"].is_available is False
    for offers in (for_other, for_nobody, for_huge):
        assert {uuid: o.open_to_group for uuid, o in offers.items()} == {
            "sq-vip": False,
            "sq-open": True,
            "sq-off": True,
        }
    assert list(some) == ["sq-open", "sq-off"]
    assert none_asked == {}


# --- the settings' tables ------------------------------------------------------------------------


async def test_classic_tables_and_the_sales_mode_come_from_the_settings(app, change_settings):
    assert sales_mode(app) == "tariffs"
    change_settings(
        PricingSettings,
        SALES_MODE="classic",
        CLASSIC_PERIOD_PRICES={30: 9_900, 90: 26_900},
        CLASSIC_RENEWAL_PERIODS=[30],
        CLASSIC_TRAFFIC_PRICES={10: 3_500, 0: 20_000},
        TRAFFIC_SELECTION_MODE="fixed",
        FIXED_TRAFFIC_LIMIT_GB=25,
        CLASSIC_TRAFFIC_PACKAGES={5: 5_000, 10: 0},
        PRICE_PER_DEVICE=8_000,
    )
    change_settings(SubscriptionSettings, DEFAULT_DEVICE_LIMIT=2, MAX_DEVICES_LIMIT=6)
    assert sales_mode(app) == "classic"
    tables = classic_tables(app)
    assert (tables.period_prices, tables.renewal_periods) == ({30: 9_900, 90: 26_900}, (30,))
    assert tables.traffic_prices == {10: 3_500, 0: 20_000}
    assert (tables.traffic_selectable, tables.fixed_traffic_gb) == (False, 25)
    assert tables.traffic_packages == {5: 5_000}  # 0 kopeks: not sold
    assert (tables.price_per_device, tables.default_device_limit, tables.max_devices) == (8_000, 2, 6)

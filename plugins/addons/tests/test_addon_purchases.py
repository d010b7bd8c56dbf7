"""The paid add-ons bought over HTTP: devices and traffic (tariffs and classic modes), short of
money (402, the cart kept, a top-up through the payments kit buys it once), the cap checked
before any money moves, a classic traffic tier switched, countries added (prorated) and
removed, bad input."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import col, select
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription

from subsvc.db import Database
from subsvc.events import Event, OutboxEvent
from subsvc.services import services

PURCHASE = "/cabinet/subscription/devices/purchase"
LEGACY = "/cabinet/subscription/devices"
DEVICES_CART = "/cabinet/subscription/devices/save-cart"
TRAFFIC = "/cabinet/subscription/traffic"
TRAFFIC_CART = "/cabinet/subscription/traffic/save-cart"
COUNTRIES = "/cabinet/subscription/countries"
CLASSIC = {"SALES_MODE": "classic", "CLASSIC_TRAFFIC_PACKAGES": "5:3000,10:6000"}


def payments(transactions: list[dict]) -> list[int]:
    return [t["amount_kopeks"] for t in transactions if t["type"] == "subscription_payment"]


async def top_up(new_payment, credit, user_id: int, amount: int, reference: str) -> None:
    await new_payment(user_id, amount, provider_payment_id=reference)
    assert (await credit(reference, amount)).credited


async def deliver_last_top_up(app: Starlette, db: Database) -> None:
    """Hand the last ``balance.topped_up`` to its subscribers now (they run after the commit
    anyway; a delivery twice is what at-least-once allows)."""
    async with db.session() as session:
        query = select(OutboxEvent).where(col(OutboxEvent.event_type) == "balance.topped_up")
        row = (await session.exec(query.order_by(col(OutboxEvent.id).desc()))).first()
    assert row is not None and row.id is not None
    for subscriber in services(app).events.subscribers["balance.topped_up"]:
        result = subscriber(Event(row.id, row.event_type, row.payload, row.created_at))
        if result is not None:
            await result


@pytest.fixture
async def on_tariff(make_tariff, make_user, subscriber):
    """A user with 200 ₽ on a tariff of 1 device (50 ₽ a month each above, at most 5) and
    100 GB (top-ups of 10 GB for 50 ₽, up to 115 GB)."""
    tariff = await make_tariff(
        device_limit=1,
        device_price_kopeks=5000,
        max_device_limit=5,
        traffic_limit_gb=100,
        traffic_topup_enabled=True,
        traffic_topup_packages={"10": 5000},
        max_topup_traffic_gb=115,
    )
    user = await make_user(balance_kopeks=20_000)
    return await subscriber(user=user, tariff_id=tariff.id, device_limit=1, traffic_limit_gb=100, days=30)


async def test_devices_bought_on_a_tariff(
    cabinet, on_tariff, reload, outbox, balance_over_http, transactions_over_http
):
    me = on_tariff
    async with cabinet(me.user.id) as http:
        bought = await http.post(PURCHASE, json={"devices": 2})
        too_many = await http.post(PURCHASE, json={"devices": 3})
    assert bought.status_code == 200, bought.text
    assert bought.json() | {"message": "", "amount_paid_label": ""} == {
        "success": True,
        "message": "",
        "devices_added": 2,
        "new_device_limit": 3,
        "amount_paid_kopeks": 10_000,
        "amount_paid_label": "",
        "new_balance_kopeks": 10_000,
        "discount_percent": 0,
        "discount_kopeks": 0,
        "base_price_kopeks": 10_000,
    }
    assert (too_many.status_code, too_many.json()) == (
        400,
        {"detail": "Максимальное количество устройств: 5"},
    )
    assert (await reload(Subscription, me.subscription.id)).device_limit == 3
    assert await balance_over_http(me.user) == 10_000
    assert payments(await transactions_over_http(me.user)) == [10_000]
    changes = [p for t, p in await outbox() if t == "subscription.changed"]
    assert [(p["change"], p["device_limit"]) for p in changes] == [("devices", 3)]


@pytest.mark.addons_env(SALES_MODE="classic", PRICE_PER_DEVICE="9000", MAX_DEVICES_LIMIT="4")
async def test_classic_devices_legacy_path_and_the_cap_of_the_settings(
    cabinet, subscriber, make_user, transactions_over_http
):
    user = await make_user(balance_kopeks=50_000)
    me = await subscriber(user=user, device_limit=2, days=10)
    lonely = await make_user()
    async with cabinet(me.user.id) as http:
        bought = await http.post(LEGACY, json={"devices": 1})
        capped = await http.post(LEGACY, json={"devices": 2})
    async with cabinet(lonely.id) as http:
        none_legacy = await http.post(LEGACY, json={"devices": 1})
        none = await http.post(PURCHASE, json={"devices": 1})
    assert (bought.status_code, bought.json()["amount_paid_kopeks"]) == (200, 3000)  # 9000 × 10 / 30
    assert (capped.status_code, capped.json()) == (400, {"detail": "Максимальное количество устройств: 4"})
    assert (none_legacy.status_code, none_legacy.json()) == (404, {"detail": "No subscription found"})
    assert (none.status_code, none.json()) == (400, {"detail": "У вас нет активной подписки"})
    assert payments(await transactions_over_http(me.user)) == [3000]


@pytest.mark.addons_env(AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_short_of_money_the_cart_is_bought_once_after_a_top_up(
    app, db, cabinet, subscriber, make_tariff, make_user, reload, new_payment, credit, wait_for,
    balance_over_http, transactions_over_http,
):  # fmt: skip
    tariff = await make_tariff(device_limit=1, device_price_kopeks=5000)
    user = await make_user(balance_kopeks=3000)
    me = await subscriber(user=user, tariff_id=tariff.id, device_limit=1, days=30)
    async with cabinet(me.user.id) as http:
        short = await http.post(PURCHASE, json={"devices": 2})
    assert short.status_code == 402
    assert short.json()["detail"] | {"message": ""} == {
        "code": "insufficient_funds",
        "message": "",
        "missing_amount": 7000,
        "error": "Insufficient balance",
        "required_kopeks": 10_000,
        "current_kopeks": 3000,
        "missing_kopeks": 7000,
        "cart_saved": True,
        "cart_mode": "add_devices",
    }
    assert await balance_over_http(me.user) == 3000 and payments(await transactions_over_http(me.user)) == []

    await top_up(new_payment, credit, me.user.id, 10_000, "p-devices")

    async def bought() -> bool:
        return (await reload(Subscription, me.subscription.id)).device_limit == 3

    await wait_for(bought)
    await top_up(new_payment, credit, me.user.id, 10_000, "p-more")  # the cart is gone: nothing more
    assert await balance_over_http(me.user) == 13_000
    assert payments(await transactions_over_http(me.user)) == [10_000]
    assert (await reload(Subscription, me.subscription.id)).device_limit == 3


async def test_traffic_bought_on_a_tariff(cabinet, on_tariff, reload, transactions_over_http):
    me = on_tariff
    async with cabinet(me.user.id) as http:
        bought = await http.post(TRAFFIC, json={"gb": 10})
        answers = [await http.post(TRAFFIC, json={"gb": 50}), await http.post(TRAFFIC, json={"gb": 10})]
        bad = [await http.post(TRAFFIC, json={"gb": -1}), await http.post(TRAFFIC, json={})]
    assert bought.status_code == 200, bought.text
    assert bought.json() == {
        "success": True,
        "message": "Traffic purchased successfully",
        "gb_added": 10,
        "new_traffic_limit_gb": 110,
        "amount_paid_kopeks": 5000,
        "new_balance_kopeks": 15_000,
        "discount_percent": 0,
        "discount_kopeks": 0,
        "base_price_kopeks": None,
    }
    assert [(a.status_code, a.json()["detail"]) for a in answers] == [
        (400, "Traffic limit exceeded. Max: 115 GB, available: 5 GB"),
        (400, "Traffic limit exceeded. Max: 115 GB, available: 5 GB"),
    ]
    assert [a.status_code for a in bad] == [422, 422]
    found = await reload(Subscription, me.subscription.id)
    assert (found.traffic_limit_gb, found.purchased_traffic_gb) == (110, 10)
    assert payments(await transactions_over_http(me.user)) == [5000]


@pytest.mark.addons_env(**CLASSIC, AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_classic_traffic_prorated_its_cart_priced_as_the_purchase(
    app, db, cabinet, subscriber, make_user, reload, new_payment, credit, wait_for, transactions_over_http
):
    user = await make_user(balance_kopeks=1000)
    me = await subscriber(user=user, traffic_limit_gb=50, days=15)
    async with cabinet(me.user.id) as http:
        listed = {
            p["gb"]: p["price_kopeks"]
            for p in (await http.get("/cabinet/subscription/traffic-packages")).json()
        }
        invalid = await http.post(TRAFFIC_CART, json={"gb": 7})
        short = await http.post(TRAFFIC, json={"gb": 10})
    assert listed == {5: 1500, 10: 3000}
    assert (invalid.status_code, invalid.json()) == (400, {"detail": "Invalid traffic package"})
    assert short.status_code == 402
    detail = short.json()["detail"]
    assert (detail["missing_amount"], detail["cart_saved"], detail["cart_mode"]) == (
        2000,
        True,
        "add_traffic",
    )
    await top_up(new_payment, credit, me.user.id, 1000, "p-short")  # still 1000 short: the cart stays
    await deliver_last_top_up(app, db)
    assert (await reload(Subscription, me.subscription.id)).traffic_limit_gb == 50
    await top_up(new_payment, credit, me.user.id, 1000, "p-traffic")

    async def bought() -> bool:
        return (await reload(Subscription, me.subscription.id)).traffic_limit_gb == 60

    await wait_for(bought)
    assert payments(await transactions_over_http(me.user)) == [listed[10]]


async def test_traffic_save_cart_refusals_and_success(cabinet, subscriber, on_tariff, make_user):
    unlimited = await subscriber(traffic_limit_gb=0)
    trial = await subscriber(is_trial=True, status="trial", traffic_limit_gb=10)
    async with cabinet(on_tariff.user.id) as http:
        saved = await http.post(TRAFFIC_CART, json={"gb": 10})
        devices_saved = await http.post(DEVICES_CART, json={"devices": 1})
        devices_bad = await http.post(DEVICES_CART, json={"devices": 101})
    async with cabinet(unlimited.user.id) as http:
        refused = [await http.post(TRAFFIC_CART, json={"gb": 10})]
    async with cabinet(trial.user.id) as http:
        refused.append(await http.post(TRAFFIC_CART, json={"gb": 10}))
    async with cabinet((await make_user()).id) as http:
        refused.append(await http.post(TRAFFIC_CART, json={"gb": 10}))
    assert (saved.status_code, saved.json()) == (200, {"success": True, "cart_saved": True})
    assert (devices_saved.status_code, devices_bad.status_code) == (200, 422)
    assert [(r.status_code, r.json()["detail"]) for r in refused] == [
        (400, "У вас уже безлимитный трафик"),
        (400, "Докупка трафика недоступна на пробном периоде"),
        (400, "У вас нет активной подписки"),
    ]


@pytest.mark.addons_env(SALES_MODE="classic")
async def test_a_classic_traffic_tier_switched(
    cabinet, subscriber, make_user, db, reload, transactions_over_http
):
    user = await make_user(balance_kopeks=10_000)
    me = await subscriber(user=user, traffic_limit_gb=25, days=30)
    trial = await subscriber(is_trial=True, status="trial", traffic_limit_gb=25)
    async with cabinet(me.user.id) as http:
        up = await http.put(TRAFFIC, json={"gb": 50})
        same = await http.put(TRAFFIC, json={"gb": 50})
        invalid = await http.put(TRAFFIC, json={"gb": 7})
        down = await http.put(TRAFFIC, json={"gb": 10})
        short = await http.put(TRAFFIC, json={"gb": 0})
    async with cabinet(trial.user.id) as http:
        paid_only = await http.put(TRAFFIC, json={"gb": 50})
    assert up.status_code == 200, up.text
    assert (up.json()["amount_paid_kopeks"], up.json()["is_upgrade"]) == (
        4000,
        True,
    )  # (11000 - 7000) × 30 / 30
    assert (same.status_code, same.json()) == (400, {"detail": "Already on this traffic package"})
    assert (invalid.status_code, invalid.json()) == (400, {"detail": "Invalid traffic package"})
    assert (down.json()["amount_paid_kopeks"], down.json()["is_upgrade"]) == (0, False)
    assert (short.status_code, short.json()) == (402, {"detail": "Insufficient balance. Need 165.00 RUB"})
    assert (paid_only.status_code, paid_only.json()) == (
        403,
        {"detail": "Traffic management is only available for paid subscriptions"},
    )
    assert (await reload(Subscription, me.subscription.id)).traffic_limit_gb == 10
    assert payments(await transactions_over_http(me.user)) == [4000]


async def test_countries_added_prorated_and_removed_free(
    cabinet, subscriber, make_user, make_server, reload, outbox, transactions_over_http
):
    await make_server("sq-de", price_kopeks=9000)
    await make_server("sq-nl", price_kopeks=9000)
    await make_server("sq-off", price_kopeks=100, is_available=False)
    user = await make_user(balance_kopeks=5000)
    me = await subscriber(["sq-nl"], user=user, days=10)
    trial = await subscriber(["sq-nl"], is_trial=True, status="trial")
    async with cabinet(me.user.id) as http:
        changed = await http.post(COUNTRIES, json={"countries": ["sq-de"]})
        refused = [
            await http.post(COUNTRIES, json={"countries": []}),
            await http.post(COUNTRIES, json={"countries": ["sq-de", "sq-off"]}),
        ]
        short = await http.post(COUNTRIES, json={"countries": ["sq-de", "sq-nl"]})
        bad = await http.post(COUNTRIES, json={"countries": "sq-de"})
    async with cabinet(trial.user.id) as http:
        refused.append(await http.post(COUNTRIES, json={"countries": ["sq-de"]}))
    assert changed.status_code == 200, changed.text
    assert changed.json() == {
        "success": True,
        "message": "Countries updated",
        "added": ["sq-de"],
        "removed": ["sq-nl"],
        "connected_squads": ["sq-de"],
        "amount_paid_kopeks": 3000,  # 9000 × 10 // 30
        "new_balance_kopeks": 2000,
    }
    assert [(r.status_code, r.json()["detail"]) for r in refused] == [
        (400, "At least one country must be selected"),
        (400, "Country sq-off is not available"),
        (400, "Country management is not available for trial subscriptions"),
    ]
    assert (short.status_code, short.json()) == (
        402,
        {"detail": "Insufficient balance. Need 30.00 RUB, have 20.00 RUB"},
    )
    assert bad.status_code == 422
    assert (await reload(Subscription, me.subscription.id)).connected_squads == ["sq-de"]
    assert payments(await transactions_over_http(me.user)) == [3000]
    assert [p["change"] for t, p in await outbox() if t == "subscription.changed"] == ["squads"]


async def test_concurrent_purchases_never_pass_the_cap_nor_move_money_for_nothing(
    db, cabinet, subscriber, make_tariff, make_user, reload, balance_over_http, transactions_over_http
):
    tariff = await make_tariff(device_limit=1, device_price_kopeks=3000, max_device_limit=3)
    user = await make_user(balance_kopeks=100_000)
    me = await subscriber(user=user, tariff_id=tariff.id, device_limit=1, days=30)

    async def buy() -> int:
        async with cabinet(me.user.id) as http:
            return (await http.post(PURCHASE, json={"devices": 1})).status_code

    if db.engine.dialect.name == "postgresql":
        statuses = await asyncio.gather(*(buy() for _ in range(6)))
    else:  # one writer at a time
        statuses = [await buy() for _ in range(6)]
    assert sorted(statuses) == [200, 200, 400, 400, 400, 400]
    assert (await reload(Subscription, me.subscription.id)).device_limit == 3
    assert payments(await transactions_over_http(me.user)) == [3000, 3000]
    assert await balance_over_http(me.user) == 94_000

"""What the paid add-ons cost before anything is bought, over HTTP: the devices' price (tariff
and classic modes, prorated to the days left, the reasons they cannot be bought), the traffic
packages on sale, the countries; and the device limit reduced (the excess devices deleted in
the fake panel first, the new limit queued with the change)."""

from __future__ import annotations

import pytest
from subsvc_subscriptions.api import Subscription

PRICE = "/cabinet/subscription/devices/price"
INFO = "/cabinet/subscription/devices/reduction-info"
REDUCE = "/cabinet/subscription/devices/reduce"
PACKAGES = "/cabinet/subscription/traffic-packages"
COUNTRIES = "/cabinet/subscription/countries"


async def test_devices_of_a_tariff_cost_its_device_price_for_the_days_left(cabinet, subscriber, make_tariff):
    tariff = await make_tariff(device_limit=1, device_price_kopeks=5000, max_device_limit=5)
    me = await subscriber(tariff_id=tariff.id, device_limit=1, days=15)
    async with cabinet(me.user.id) as http:
        price = (await http.get(PRICE, params={"devices": 2})).json()
        too_many = (await http.get(PRICE, params={"devices": 5})).json()
        bad = await http.get(PRICE, params={"devices": 0})
    assert price["available"] is True
    assert (price["chargeable_devices"], price["days_left"], price["total_price_kopeks"]) == (2, 15, 5000)
    assert (price["new_device_limit"], price["max_device_limit"]) == (3, 5)
    assert too_many == too_many | {"available": False, "reason": "Максимальное количество устройств: 5"}
    assert bad.status_code == 422


@pytest.mark.addons_env(SALES_MODE="classic", PRICE_PER_DEVICE="9000", DEFAULT_DEVICE_LIMIT="2")
async def test_classic_devices_up_to_the_included_ones_are_free(cabinet, subscriber):
    me = await subscriber(device_limit=1, days=30)
    async with cabinet(me.user.id) as http:
        one = (await http.get(PRICE, params={"devices": 1})).json()
        three = (await http.get(PRICE, params={"devices": 3})).json()
    assert (one["chargeable_devices"], one["total_price_kopeks"]) == (0, 0)
    assert (three["chargeable_devices"], three["total_price_kopeks"]) == (2, 18000)


@pytest.mark.addons_env(DEVICES_PURCHASE_ENABLED="false")
async def test_devices_not_sold_or_no_subscription_are_unavailable(cabinet, subscriber, make_user):
    me = await subscriber()
    lonely = await make_user()
    async with cabinet(me.user.id) as http:
        off = (await http.get(PRICE)).json()
    async with cabinet(lonely.id) as http:
        none = (await http.get(PRICE)).json()
    assert (off["available"], off["reason"]) == (False, "Докупка устройств недоступна")
    assert (none["available"], none["reason"]) == (False, "Нет активной подписки")


async def test_reducing_deletes_the_last_devices_then_queues_the_limit(
    cabinet, subscriber, make_tariff, fake_panel, reload, outbox
):
    tariff = await make_tariff(device_limit=1)
    me = await subscriber(tariff_id=tariff.id, device_limit=4)
    for hwid in ("hw-a", "hw-b", "hw-c"):
        fake_panel.add_device(me.account["uuid"], hwid)
    async with cabinet(me.user.id) as http:
        info = (await http.get(INFO)).json()
        assert info == {
            "available": True,
            "reason": None,
            "current_device_limit": 4,
            "min_device_limit": 1,
            "can_reduce": True,
            "connected_devices_count": 3,
        }
        reduced = await http.post(REDUCE, json={"new_device_limit": 1})
    assert reduced.status_code == 200
    assert reduced.json() | {"message": ""} == {
        "success": True,
        "message": "",
        "old_device_limit": 4,
        "new_device_limit": 1,
        "removed_devices": ["hw-b", "hw-c"],
        "removed_devices_count": 2,
    }
    assert [d["hwid"] for d in fake_panel.devices[me.account["uuid"]]] == ["hw-a"]
    assert (await reload(Subscription, me.subscription.id)).device_limit == 1
    changes = [p for t, p in await outbox() if t == "subscription.changed"]
    assert [(p["change"], p["device_limit"]) for p in changes] == [("devices", 1)]


async def test_reducing_refusals(cabinet, subscriber, make_tariff, fake_panel, reload):
    tariff = await make_tariff(device_limit=2)
    me = await subscriber(tariff_id=tariff.id, device_limit=3)
    trial = await subscriber(is_trial=True, status="trial")
    fake_panel.add_device(me.account["uuid"], "hw-a")
    fake_panel.add_device(me.account["uuid"], "hw-b")
    fake_panel.add_device(me.account["uuid"], "hw-c")
    async with cabinet(me.user.id) as http:
        answers = [
            await http.post(REDUCE, json={"new_device_limit": 0}),
            await http.post(REDUCE, json={"new_device_limit": 3}),
            await http.post(REDUCE, json={"new_device_limit": 1}),
        ]
        missing = await http.post(REDUCE, json={})
        await fake_panel.down()
        down = await http.post(REDUCE, json={"new_device_limit": 2})
    async with cabinet(trial.user.id) as http:
        answers.append(await http.post(REDUCE, json={"new_device_limit": 1}))
        trial_info = (await http.get(INFO)).json()
    assert [(a.status_code, a.json()["detail"]) for a in answers] == [
        (400, "Invalid new_device_limit"),
        (400, "New device limit must be less than the current one (3)"),
        (400, "Device limit cannot be less than 2"),
        (400, "Device reduction is not available for trial subscriptions"),
    ]
    assert missing.status_code == 422
    assert (down.status_code, down.json()) == (
        502,
        {"detail": "Не удалось обновить VPN-панель. Попробуйте позже."},
    )
    assert (await reload(Subscription, me.subscription.id)).device_limit == 3  # nothing changed
    assert (trial_info["available"], trial_info["can_reduce"]) == (False, False)


@pytest.mark.addons_env(ALLOW_DEVICES_BELOW_TARIFF_LIMIT="true")
@pytest.mark.no_panel
async def test_without_a_panel_the_limit_alone_goes_down(cabinet, subscriber, make_tariff, reload):
    tariff = await make_tariff(device_limit=3)
    me = await subscriber(tariff_id=tariff.id, device_limit=3, account=False)
    async with cabinet(me.user.id) as http:
        assert (await http.get(INFO)).json()["min_device_limit"] == 1
        reduced = await http.post(REDUCE, json={"new_device_limit": 1})
    assert (reduced.status_code, reduced.json()["removed_devices"]) == (200, [])
    assert (await reload(Subscription, me.subscription.id)).device_limit == 1


async def test_a_tariffs_packages_at_their_price(cabinet, subscriber, make_tariff, make_user):
    tariff = await make_tariff(
        traffic_limit_gb=100,
        traffic_topup_enabled=True,
        traffic_topup_packages={"10": 5000, "50": 20000, "5": 0},
    )
    off = await make_tariff(name="Off", traffic_limit_gb=100, traffic_topup_packages={"10": 5000})
    me = await subscriber(tariff_id=tariff.id, traffic_limit_gb=100, days=10)
    other = await subscriber(tariff_id=off.id, traffic_limit_gb=100)
    async with cabinet(me.user.id) as http:
        listed = (await http.get(PACKAGES)).json()
    async with cabinet(other.user.id) as http:
        assert (await http.get(PACKAGES)).json() == []
    assert listed == [
        {"gb": 10, "price_kopeks": 5000, "price_rubles": 50.0, "is_unlimited": False, "discount_percent": 0,
         "base_price_kopeks": None, "discount_kopeks": None},
        {"gb": 50, "price_kopeks": 20000, "price_rubles": 200.0, "is_unlimited": False, "discount_percent": 0,
         "base_price_kopeks": None, "discount_kopeks": None},
    ]  # fmt: skip


@pytest.mark.addons_env(SALES_MODE="classic", CLASSIC_TRAFFIC_PACKAGES="5:3000,10:6000,25:0")
async def test_classic_packages_are_prorated_as_the_purchase_charges(cabinet, subscriber):
    me = await subscriber(traffic_limit_gb=50, days=15)
    async with cabinet(me.user.id) as http:
        listed = (await http.get(PACKAGES)).json()
    assert [(p["gb"], p["price_kopeks"]) for p in listed] == [(5, 1500), (10, 3000)]


async def test_countries_listed_with_their_prices(cabinet, subscriber, make_server):
    await make_server("sq-de", display_name="Germany", country_code="DE", price_kopeks=9000)
    await make_server("sq-nl", display_name="Netherlands", price_kopeks=6000, is_available=False)
    me = await subscriber(["sq-nl"], days=10)
    async with cabinet(me.user.id) as http:
        found = (await http.get(COUNTRIES)).json()
    assert (found["connected_squads"], found["days_left"], found["has_trial"]) == (["sq-nl"], 10, False)
    by_uuid = {c["uuid"]: c for c in found["countries"]}
    assert by_uuid["sq-de"] | {"price_rubles": 0} == {
        "uuid": "sq-de",
        "name": "Germany",
        "country_code": "DE",
        "price_kopeks": 9000,
        "price_rubles": 0,
        "price_per_month_kopeks": 9000,
        "prorated_price_kopeks": 3000,
        "discount_percent": 0,
        "is_available": True,
        "is_connected": False,
    }
    assert (by_uuid["sq-nl"]["is_available"], by_uuid["sq-nl"]["is_connected"]) == (False, True)

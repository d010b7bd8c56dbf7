"""Add-ons bought through the mini app: the addons plugin's prices, caps and money moves, the
mini app's bodies."""

from __future__ import annotations

from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User


async def _on_tariff(make_tariff, make_user, make_subscription, balance: int = 20_000):
    """A user on a tariff of 1 device (50 ₽ a month each above, at most 5) and 100 GB
    (top-ups of 10 GB for 50 ₽, up to 115 GB)."""
    tariff = await make_tariff(
        device_limit=1,
        device_price_kopeks=5000,
        max_device_limit=5,
        traffic_limit_gb=100,
        traffic_topup_enabled=True,
        traffic_topup_packages={"10": 5000},
        max_topup_traffic_gb=115,
    )
    user = await make_user(balance_kopeks=balance)
    sub = await make_subscription(
        user, days=30, status="active", tariff_id=tariff.id, device_limit=1, traffic_limit_gb=100
    )
    return user, sub


async def test_a_traffic_package_is_bought_and_the_cap_kept(
    miniapp, make_tariff, make_user, make_subscription, reload
):
    me, sub = await _on_tariff(make_tariff, make_user, make_subscription)
    bought = await miniapp("/subscription/traffic-topup", me, gb=10)
    assert bought.status_code == 200, bought.text
    assert (bought.json()["gb_added"], bought.json()["amount_paid_kopeks"]) == (10, 5000)
    assert (await reload(Subscription, sub.id)).traffic_limit_gb == 110
    assert (await reload(User, me.id)).balance_kopeks == 15_000
    over = await miniapp("/subscription/traffic-topup", me, gb=10)
    assert (over.status_code, over.json()["detail"]) == (
        400,
        {"code": "invalid_request", "message": "Traffic limit exceeded. Max: 115 GB, available: 5 GB"},
    )


async def test_short_of_money_a_traffic_package_is_402_with_its_cart(
    miniapp, make_tariff, make_user, make_subscription, reload
):
    me, sub = await _on_tariff(make_tariff, make_user, make_subscription, balance=100)
    short = await miniapp("/subscription/traffic-topup", me, gb=10)
    assert short.status_code == 402, short.text
    assert short.json()["detail"]["code"] == "insufficient_funds"
    assert (await reload(Subscription, sub.id)).traffic_limit_gb == 100


async def test_the_device_limit_is_raised_by_a_purchase(
    miniapp, make_tariff, make_user, make_subscription, reload
):
    me, sub = await _on_tariff(make_tariff, make_user, make_subscription)
    raised = await miniapp("/subscription/devices", me, devices=3)
    assert raised.status_code == 200, raised.text
    assert raised.json()["success"] is True and raised.json()["message"]
    assert (await reload(Subscription, sub.id)).device_limit == 3
    assert (await reload(User, me.id)).balance_kopeks == 10_000
    same = await miniapp("/subscription/devices", me, device_limit=3)
    assert (same.status_code, same.json()["detail"]["code"]) == (400, "invalid_request")
    too_many = await miniapp("/subscription/devices", me, devices=9)
    assert too_many.status_code == 400
    assert too_many.json()["detail"]["message"] == "Максимальное количество устройств: 5"


async def test_add_on_refusals(miniapp, make_user):
    lonely = await make_user()
    none = await miniapp("/subscription/devices", lonely, devices=2)
    assert (none.status_code, none.json()["detail"]["code"]) == (404, "subscription_not_found")
    nothing = await miniapp("/subscription/servers", lonely, servers=[])
    assert (nothing.status_code, nothing.json()["detail"]["code"]) == (400, "invalid_request")
    no_tier = await miniapp("/subscription/traffic", lonely)
    assert no_tier.status_code == 400
    no_sub = await miniapp("/subscription/traffic-topup", lonely, gb=10)
    assert (no_sub.status_code, no_sub.json()["detail"]["code"]) == (404, "subscription_not_found")


async def test_the_settings_show_what_may_change_at_the_users_prices(
    miniapp, make_tariff, make_user, make_subscription
):
    me, sub = await _on_tariff(make_tariff, make_user, make_subscription)
    answer = await miniapp("/subscription/settings", me)
    assert answer.status_code == 200, answer.text
    settings = answer.json()["settings"]
    assert settings["subscription_id"] == sub.id and settings["currency"] == "RUB"
    assert settings["current"]["device_limit"] == 1 and settings["current"]["traffic_limit_gb"] == 100
    assert [(o["value"], o["price_kopeks"]) for o in settings["traffic"]["options"]] == [(10, 5000)]
    devices = settings["devices"]
    assert (devices["current"], devices["max"], devices["can_update"]) == (1, 5, True)
    assert devices["price_kopeks"] and devices["price_kopeks"] > 0
    none = await miniapp("/subscription/settings", await make_user())
    assert (none.status_code, none.json()["detail"]["code"]) == (404, "subscription_not_found")

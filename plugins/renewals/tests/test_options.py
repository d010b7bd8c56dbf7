"""Renewal options (§2.2): the tariff's periods with the extra devices priced, the classic
periods in classic mode, none for what cannot be renewed; autopay switched on and off."""

from __future__ import annotations

import pytest

OPTIONS = "/cabinet/subscription/renewal-options"
AUTOPAY = "/cabinet/subscription/autopay"


def option(days: int, price: int, original: int | None = None, discount: int = 0) -> dict:
    return {
        "period_days": days,
        "price_kopeks": price,
        "price_rubles": price / 100,
        "discount_percent": discount,
        "original_price_kopeks": price if original is None else original,
    }


async def test_the_tariffs_periods_with_the_extra_devices(cabinet, make_tariff, subscriber):
    tariff = await make_tariff(
        period_prices={"30": 30_000, "90": 80_000, "180": -1}, device_price_kopeks=5_000
    )
    plain = await subscriber(tariff=tariff)
    more = await subscriber(tariff=tariff, device_limit=3)
    async with cabinet(plain.user.id) as http:
        assert (await http.get(OPTIONS)).json() == [option(30, 30_000), option(90, 80_000)]
    async with cabinet(more.user.id) as http:  # 2 extra devices: 5 000 a month each
        assert (await http.get(OPTIONS)).json() == [option(30, 40_000), option(90, 110_000)]


async def test_nothing_to_renew_is_an_empty_list(cabinet, make_user, make_tariff, subscriber):
    tariff = await make_tariff()
    lonely = await make_user()
    disabled = await subscriber(tariff=tariff, status="disabled")
    classic = await subscriber()  # no tariff, tariffs mode
    for user in (lonely, disabled.user, classic.user):
        async with cabinet(user.id) as http:
            answer = await http.get(OPTIONS)
            assert (answer.status_code, answer.json()) == (200, [])


@pytest.mark.renewals_env(SALES_MODE="classic")
async def test_classic_mode_prices_the_renewal_periods(cabinet, subscriber):
    me = await subscriber(traffic_limit_gb=0, device_limit=1)
    async with cabinet(me.user.id) as http:
        found = (await http.get(OPTIONS)).json()
    # the period's price and the unlimited traffic tier (20 000 a month) times the months
    assert found == [option(30, 29_900), option(90, 86_900), option(180, 169_900)]


async def test_autopay_is_switched_for_a_tariffs_subscription(cabinet, make_tariff, subscriber, reload):
    me = await subscriber(tariff=await make_tariff())
    async with cabinet(me.user.id) as http:
        on = await http.patch(AUTOPAY, json={"enabled": True, "days_before": 5})
        assert (on.status_code, on.json()) == (
            200,
            {"message": "Autopay settings updated", "autopay_enabled": True, "autopay_days_before": 5},
        )
        off = await http.patch(AUTOPAY, json={"enabled": False})
        assert off.json() == {
            "message": "Autopay settings updated",
            "autopay_enabled": False,
            "autopay_days_before": 5,
        }
        too_early = await http.patch(AUTOPAY, json={"enabled": True, "days_before": 31})
        assert too_early.status_code == 422
    assert (await reload(type(me.subscription), me.subscription.id)).autopay_enabled is False


async def test_autopay_refusals(cabinet, make_user, make_tariff, subscriber):
    tariff, daily = await make_tariff(), await make_tariff(is_daily=True, daily_price_kopeks=1_000)
    cases = [
        (
            await subscriber(),
            400,
            "Autopay is not available for classic subscriptions. Please purchase a tariff.",
        ),
        (
            await subscriber(tariff=tariff, is_trial=True),
            400,
            "Autopay is not available for trial subscriptions",
        ),
        (await subscriber(tariff=daily), 400, "Autopay is not available for daily subscriptions"),
    ]
    for who, status, detail in cases:
        async with cabinet(who.user.id) as http:
            refused = await http.patch(AUTOPAY, json={"enabled": True})
            assert (refused.status_code, refused.json()) == (status, {"detail": detail})
    async with cabinet((await make_user()).id) as http:
        missing = await http.patch(AUTOPAY, json={"enabled": True})
        assert (missing.status_code, missing.json()) == (404, {"detail": "No subscription found"})

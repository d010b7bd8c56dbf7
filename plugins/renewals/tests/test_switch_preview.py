"""The tariff switch's preview (§2.3): the difference of the daily rates over the days left,
the extra devices carried up to the new tariff's cap and the rest's refund; the refusals."""

from __future__ import annotations

import pytest
from subsvc_subscriptions.api import Subscription

PREVIEW = "/cabinet/subscription/tariff/switch/preview"
SWITCH = "/cabinet/subscription/tariff/switch"


async def test_an_upgrade_carries_what_fits_and_refunds_the_rest(cabinet, make_tariff, subscriber):
    old = await make_tariff(period_prices={"30": 30_000}, device_price_kopeks=5_000, max_device_limit=3)
    new = await make_tariff(
        period_prices={"30": 60_000}, device_limit=2, device_price_kopeks=5_000, max_device_limit=3
    )
    me = await subscriber(tariff=old, device_limit=4, days=15.5, balance=10_000)
    async with cabinet(me.user.id) as http:
        preview = await http.post(PREVIEW, json={"tariff_id": new.id, "period_days": 30})
    assert preview.status_code == 200, preview.text
    body = preview.json()
    assert body | {"upgrade_cost_label": None, "balance_label": None, "missing_amount_label": None} == {
        "can_switch": False,
        "current_tariff_id": old.id,
        "current_tariff_name": old.name,
        "new_tariff_id": new.id,
        "new_tariff_name": new.name,
        "remaining_days": 15,
        "upgrade_cost_kopeks": 15_000,  # (60 000*30 - 30 000*30) * 15 / (30*30)
        "upgrade_cost_label": None,
        "balance_kopeks": 10_000,
        "balance_label": None,
        "has_enough_balance": False,
        "missing_amount_kopeks": 5_000,
        "missing_amount_label": None,
        "is_upgrade": True,
        "discount_percent": None,
        "discount_kopeks": None,
        "base_upgrade_cost_kopeks": None,
        "new_device_limit": 3,  # 2 included + 1 of the 3 extra (the cap is 3)
        "devices_carried": 1,
        "devices_dropped": 2,
        "refund_kopeks": 5_333,  # 2 * 5 000 * 16 days left // 30
    }
    assert body["upgrade_cost_label"] == "150 ₽" and body["missing_amount_label"] == "50 ₽"


async def test_a_downgrade_is_free(cabinet, make_tariff, subscriber):
    old = await make_tariff(period_prices={"30": 60_000})
    new = await make_tariff(period_prices={"30": 30_000})
    me = await subscriber(tariff=old, days=10.5)
    async with cabinet(me.user.id) as http:
        body = (await http.post(PREVIEW, json={"tariff_id": new.id, "period_days": 30})).json()
    assert (body["upgrade_cost_kopeks"], body["upgrade_cost_label"], body["is_upgrade"]) == (
        0,
        "Бесплатно",
        False,
    )
    assert body["can_switch"] is True


async def test_refusals(cabinet, make_user, make_tariff, subscriber):
    old, new = await make_tariff(), await make_tariff()
    hidden = await make_tariff(is_active=False)
    cases = [
        (await subscriber(tariff=old, days=-1), new.id, 400, "subscription_expired"),
        (await subscriber(tariff=old, is_trial=True), new.id, 400, "trial_cannot_switch"),
        (await subscriber(tariff=old, status="disabled"), new.id, 400, "subscription_not_active"),
        (await subscriber(tariff=old), hidden.id, 404, "Tariff not found or inactive"),
        (await subscriber(tariff=old), old.id, 400, "Already on this tariff"),
        (await subscriber(), new.id, 400, "No active subscription with tariff"),
    ]
    for who, tariff_id, status, code in cases:
        async with cabinet(who.user.id) as http:
            refused = await http.post(PREVIEW, json={"tariff_id": tariff_id, "period_days": 30})
        detail = refused.json()["detail"]
        assert refused.status_code == status
        assert (detail["code"] if isinstance(detail, dict) else detail) == code


@pytest.mark.renewals_env(TARIFF_SWITCH_UPGRADE_ENABLED="false")
async def test_upgrades_can_be_disabled(cabinet, make_tariff, subscriber):
    old = await make_tariff(period_prices={"30": 30_000})
    new = await make_tariff(period_prices={"30": 60_000})
    me = await subscriber(tariff=old)
    async with cabinet(me.user.id) as http:
        refused = await http.post(PREVIEW, json={"tariff_id": new.id, "period_days": 30})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Повышение тарифа недоступно"})


@pytest.mark.renewals_env(TARIFF_SWITCH_RESET_FREE_DAYS="true")
async def test_a_free_tariff_cannot_switch_when_its_days_are_not_carried(
    cabinet, make_tariff, subscriber, reload
):
    free = await make_tariff(period_prices={"30": 0})
    paid = await make_tariff(period_prices={"30": 30_000})
    dearer = await make_tariff(period_prices={"30": 60_000})
    on_free, on_paid = await subscriber(tariff=free), await subscriber(tariff=paid, balance=100_000)
    async with cabinet(on_free.user.id) as http:
        previewed = await http.post(PREVIEW, json={"tariff_id": paid.id, "period_days": 30})
        switched = await http.post(SWITCH, json={"tariff_id": paid.id, "period_days": 30})
    for refused in (previewed, switched):
        assert refused.status_code == 400
        assert refused.json()["detail"] | {"message": ""} == {
            "code": "free_tariff_cannot_switch",
            "message": "",
            "use_purchase_flow": True,
        }
    assert (await reload(Subscription, on_free.subscription.id)).tariff_id == free.id
    async with cabinet(on_paid.user.id) as http:  # a paid tariff still switches
        allowed = await http.post(PREVIEW, json={"tariff_id": dearer.id, "period_days": 30})
    assert allowed.status_code == 200, allowed.text


async def test_a_free_tariff_switches_while_its_days_are_carried(cabinet, make_tariff, subscriber):
    free = await make_tariff(period_prices={"30": 0})
    paid = await make_tariff(period_prices={"30": 30_000})
    on_free = await subscriber(tariff=free, balance=100_000)
    async with cabinet(on_free.user.id) as http:
        previewed = await http.post(PREVIEW, json={"tariff_id": paid.id, "period_days": 30})
    assert previewed.status_code == 200, previewed.text

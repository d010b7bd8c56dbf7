"""Release 4.1.0 of the users list and detail: each item's subscriptions and tariff, the new
filters; the detail's every subscription, its null recurring and panel-id fields."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_tariffs.models import Tariff

from subsvc.testing import stored

BASE = "/cabinet/admin/users"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["cabinet_admin_users", "tariffs"]


def _ids(response):
    assert response.status_code == 200, response.text
    return sorted(item["id"] for item in response.json()["users"])


async def test_an_item_lists_every_subscription_with_its_tariff(admin, db, make_user, make_subscription):
    pro = await stored(db, Tariff(name="Pro"))
    user = await make_user()
    old = await make_subscription(user, days=-3, status="expired", traffic_limit_gb=10, device_limit=1)
    new = await make_subscription(
        user, days=10.5, tariff_id=pro.id, traffic_limit_gb=100, traffic_used_gb=2.5, device_limit=3
    )
    (item,) = (await admin.get(BASE)).json()["users"]
    assert (item["tariff_id"], item["tariff_name"]) == (pro.id, "Pro")
    assert (item["traffic_used_gb"], item["traffic_limit_gb"], item["device_limit"]) == (2.5, 100, 3)
    assert item["days_remaining"] == 10
    assert [(s["id"], s["status"], s["tariff_name"], s["days_remaining"]) for s in item["subscriptions"]] == [
        (new.id, "active", "Pro", 10),
        (old.id, "expired", None, 0),
    ]


async def test_a_user_without_subscriptions(admin, make_user):
    await make_user()
    (item,) = (await admin.get(BASE)).json()["users"]
    assert item["subscriptions"] == [] and item["tariff_id"] is None and item["days_remaining"] == 0


async def test_filters_by_subscription_status_tariff_and_promo_group(
    admin, db, make_user, make_subscription, client
):
    pro, basic = await stored(db, Tariff(name="Pro")), await stored(db, Tariff(name="Basic"))
    active, lapsed, disabled, none = [await make_user() for _ in range(4)]
    await make_subscription(active, days=5, tariff_id=pro.id)
    await make_subscription(lapsed, days=-1, tariff_id=basic.id)  # stored active, ended: expired
    await make_subscription(disabled, days=5, status="disabled", tariff_id=basic.id)

    assert _ids(await admin.get(BASE, params={"subscription_status": "active"})) == [active.id]
    assert _ids(await admin.get(BASE, params={"subscription_status": "expired"})) == [lapsed.id]
    assert _ids(await admin.get(BASE, params={"subscription_status": "disabled"})) == [disabled.id]
    assert _ids(await admin.get(BASE, params={"tariff_id": str(basic.id)})) == sorted(
        [lapsed.id, disabled.id]
    )
    both = f"{pro.id}, {basic.id}"
    assert _ids(await admin.get(BASE, params={"tariff_id": both})) == sorted(
        [active.id, lapsed.id, disabled.id]
    )
    combined = {"tariff_id": str(basic.id), "subscription_status": "expired"}
    assert _ids(await admin.get(BASE, params=combined)) == [lapsed.id]
    bad = await admin.get(BASE, params={"tariff_id": "pro"})
    assert (bad.status_code, bad.json()) == (
        400,
        {"detail": "tariff_id must be tariff ids separated by commas"},
    )

    group = (await client.post("/promo-groups", json={"name": "VIP"})).json()
    await admin.post(f"{BASE}/{none.id}/promo-group", json={"promo_group_id": group["id"]})
    assert _ids(await admin.get(BASE, params={"promo_group_id": group["id"]})) == [none.id]
    assert (await admin.get(BASE, params={"promo_group_id": group["id"]})).json()["total"] == 1


async def test_campaign_and_partner_filters_match_nobody_until_a_plugin_records_them(admin, make_user):
    await make_user()
    for params in ({"campaign_id": 1}, {"partner_id": 1}):
        assert (await admin.get(BASE, params=params)).json()["users"] == []
        assert (await admin.get(BASE, params=params)).json()["total"] == 0
    assert len((await admin.get(BASE)).json()["users"]) == 1


async def test_the_detail_shows_every_subscription(admin, db, make_user, make_subscription):
    pro = await stored(db, Tariff(name="Pro"))
    user = await make_user()
    trial = await make_subscription(user, days=-1, is_trial=True, status="expired")
    paid = await make_subscription(user, days=20, tariff_id=pro.id)
    for url in (f"{BASE}/{user.id}", f"{BASE}/by-messenger/{user.messenger_id}"):
        body = (await admin.get(url)).json()
        assert body["subscription"]["id"] == paid.id and body["subscription"]["tariff_name"] == "Pro"
        assert [s["id"] for s in body["subscriptions"]] == [paid.id, trial.id]
        assert [s["tariff_name"] for s in body["subscriptions"]] == ["Pro", None]
        assert {s["sbp_recurring_status"] for s in body["subscriptions"]} == {None}
        assert {s["sbp_recurring_id"] for s in body["subscriptions"]} == {None}
        assert body["panel_id"] is None


async def test_an_action_on_a_chosen_subscription(admin, make_user, make_subscription, reload):
    from subsvc_subscriptions.models import Subscription

    user, stranger = await make_user(), await make_user()
    first = await make_subscription(user, days=5)
    second = await make_subscription(user, days=5)
    theirs = await make_subscription(stranger, days=5)
    body = {"action": "set_device_limit", "device_limit": 7, "subscription_id": first.id}
    response = await admin.post(f"{BASE}/{user.id}/subscription", json=body)
    assert response.json()["subscription"]["id"] == first.id
    assert response.json()["subscription"]["sbp_recurring_status"] is None
    assert (await reload(Subscription, first.id)).device_limit == 7
    assert (await reload(Subscription, second.id)).device_limit != 7
    refused = await admin.post(f"{BASE}/{user.id}/subscription", json={**body, "subscription_id": theirs.id})
    assert (refused.status_code, refused.json()) == (404, {"detail": "Subscription not found"})
    assert (await reload(Subscription, theirs.id)).device_limit != 7


async def test_a_subscription_filter_counts_afresh_after_a_subscription_change(
    admin, make_user, make_subscription
):
    user = await make_user()
    await make_subscription(user, days=5)
    params = {"subscription_status": "active"}
    assert (await admin.get(BASE, params=params)).json()["total"] == 1
    await admin.post(f"{BASE}/{user.id}/subscription", json={"action": "cancel"})
    assert (await admin.get(BASE, params=params)).json()["total"] == 0
    assert (await admin.get(BASE, params={"subscription_status": "expired"})).json()["total"] == 1

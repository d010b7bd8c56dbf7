"""An administrator's restriction of a user's subscription purchases (cabinet_admin_users,
through sales' ``check_not_restricted``): every paid add-on answers 403 with the reference's
text and changes nothing; lifted, the purchase goes through."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_subscriptions.api import Subscription

RESTRICTED = {"detail": "Subscription purchases are restricted for this account"}
PAID = [
    ("post", "/cabinet/subscription/traffic", {"gb": 10}),
    ("put", "/cabinet/subscription/traffic", {"gb": 50}),
    ("post", "/cabinet/subscription/devices/purchase", {"devices": 1}),
    ("post", "/cabinet/subscription/devices", {"devices": 1}),
    ("post", "/cabinet/subscription/countries", {"countries": ["squad-de"]}),
]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["addons", "panel_sync", "cabinet_admin_users"]


async def restrict(admin: Any, user_id: int, restricted: bool) -> None:
    answer = await admin.post(
        f"/cabinet/admin/users/{user_id}/restrictions", json={"restriction_subscription": restricted}
    )
    assert answer.status_code == 200, answer.text


async def test_a_restricted_user_buys_no_add_on(
    admin, cabinet, make_tariff, make_user, subscriber, reload, balance_over_http, transactions_over_http
):
    tariff = await make_tariff(
        device_limit=1,
        device_price_kopeks=5000,
        max_device_limit=5,
        traffic_topup_enabled=True,
        traffic_topup_packages={"10": 5000},
    )
    user = await make_user(balance_kopeks=20_000)
    me = await subscriber(user=user, tariff_id=tariff.id, device_limit=1, traffic_limit_gb=100, days=30)
    await restrict(admin, me.user.id, True)
    async with cabinet(me.user.id) as http:
        for method, path, body in PAID:
            refused = await http.request(method, path, json=body)
            assert (refused.status_code, refused.json()) == (403, RESTRICTED), (method, path)
        row = await reload(Subscription, me.subscription.id)
        assert (row.device_limit, row.traffic_limit_gb) == (1, 100)
        assert await balance_over_http(me.user) == 20_000
        assert await transactions_over_http(me.user) == []
        await restrict(admin, me.user.id, False)
        bought = await http.post("/cabinet/subscription/devices/purchase", json={"devices": 1})
    assert bought.status_code == 200, bought.text
    assert (await reload(Subscription, me.subscription.id)).device_limit == 2

"""An administrator's restriction of a user's subscription purchases (cabinet_admin_users,
through sales' ``check_not_restricted``): renewing and switching answer 403 with the
reference's texts and change nothing; lifted, both work again."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_subscriptions.api import Subscription

RENEW = "/cabinet/subscription/renew"
SWITCH = "/cabinet/subscription/tariff/switch"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["renewals", "cabinet_admin_users"]


async def restrict(admin: Any, user_id: int, restricted: bool) -> None:
    answer = await admin.post(
        f"/cabinet/admin/users/{user_id}/restrictions", json={"restriction_subscription": restricted}
    )
    assert answer.status_code == 200, answer.text


async def test_a_restricted_user_can_neither_renew_nor_switch(
    admin, cabinet, make_tariff, subscriber, reload, balance_over_http, transactions_over_http
):
    tariff = await make_tariff(period_prices={"30": 30_000})
    dearer = await make_tariff(period_prices={"30": 60_000})
    me = await subscriber(tariff=tariff, days=10, balance=100_000)
    await restrict(admin, me.user.id, True)
    async with cabinet(me.user.id) as http:
        renewed = await http.post(RENEW, json={"period_days": 30})
        switched = await http.post(SWITCH, json={"tariff_id": dearer.id, "period_days": 30})
        assert (renewed.status_code, renewed.json()) == (
            403,
            {"detail": "Subscription renewal is restricted for this account"},
        )
        assert (switched.status_code, switched.json()) == (
            403,
            {"detail": "Subscription purchases are restricted for this account"},
        )
        row = await reload(Subscription, me.subscription.id)
        assert (row.end_date, row.tariff_id) == (me.subscription.end_date, tariff.id)
        assert await balance_over_http(me.user) == 100_000
        assert await transactions_over_http(me.user) == []
        await restrict(admin, me.user.id, False)
        assert (await http.post(RENEW, json={"period_days": 30})).status_code == 200
        switched = await http.post(SWITCH, json={"tariff_id": dearer.id, "period_days": 30})
        assert switched.status_code == 200, switched.text

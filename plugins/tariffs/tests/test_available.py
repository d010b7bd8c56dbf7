"""The tariffs the cabinet admin's ``available-tariffs`` shows when cabinet_admin_users runs,
each marked available or not for the user's promo group. (Prices are the pricing plugin's:
its engine tests replace the ruble round-up this plugin's purchase options had.)"""

from __future__ import annotations

import pytest


class TestAvailableTariffsOfAUser:
    """With cabinet_admin_users, `GET /cabinet/admin/users/{id}/available-tariffs` lists ours."""

    @pytest.fixture
    def subsvc_plugins(self, subsvc_plugins):
        return [*subsvc_plugins, "subsvc_billing.plugin", "subsvc_cabinet_admin_users.plugin"]

    async def test_tariffs_marked_available_for_the_users_group(
        self, admin, make_tariff, make_group, make_user, make_subscription
    ):
        vip = await make_group(name="VIP")
        open_tariff = await make_tariff(name="Open", period_prices=[{"days": 30, "price_kopeks": 50000}])
        await make_tariff(name="VIP only", promo_group_ids=[vip.id])
        await make_tariff(name="Off", is_active=False)
        user = await make_user()
        await make_subscription(user=user, tariff_id=open_tariff["id"])

        body = (await admin.get(f"/cabinet/admin/users/{user.id}/available-tariffs")).json()
        assert body["total"] == 2
        assert (body["current_tariff_id"], body["current_tariff_name"]) == (open_tariff["id"], "Open")
        by_name = {t["name"]: t for t in body["tariffs"]}
        assert by_name["Open"]["is_available"] is True and by_name["Open"]["requires_promo_group"] is False
        assert by_name["Open"]["period_prices"] == [
            {"days": 30, "price_kopeks": 50000, "price_rubles": 500.0}
        ]
        assert (
            by_name["VIP only"]["is_available"] is False
            and by_name["VIP only"]["requires_promo_group"] is True
        )

        everything = (
            await admin.get(
                f"/cabinet/admin/users/{user.id}/available-tariffs", params={"include_inactive": True}
            )
        ).json()
        assert [t["name"] for t in everything["tariffs"]] == ["Open", "VIP only", "Off"]
        assert everything["tariffs"][2]["is_available"] is False

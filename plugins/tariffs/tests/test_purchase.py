"""The purchase options the cabinet reads (``subsvc_tariffs.purchase``): active tariffs the
buyer's promo group may buy, periods at the group's discounted prices; and the tariffs the
cabinet admin's ``available-tariffs`` shows when cabinet_admin_users runs."""

from __future__ import annotations

import pytest
from subsvc_tariffs.purchase import PeriodOption, discounted, purchase_options, purchase_options_for_user

BASE = "/cabinet/admin/tariffs"


@pytest.mark.parametrize(
    ("price", "percent", "expected"),
    [
        (50000, 0, 50000),
        (50000, 10, 45000),
        (99900, 15, 85000),  # 84915 -> rounded up to the ruble
        (150, 10, 135),  # a discount under a ruble is not rounded
        (10000, 100, 0),
        (10000, 150, 0),  # clamped to 100
        (10000, -5, 10000),  # clamped to 0
        (0, 50, 0),
        (199, 50, 100),  # 100 off: 99 -> rounded up to 100
    ],
)
def test_discounted(price, percent, expected):
    assert discounted(price, percent) == expected
    assert 0 <= discounted(price, percent) <= price


async def test_options_for_a_group(db, make_tariff, make_group, admin):
    vip = await make_group(name="VIP", period_discounts={"30": 10, "90": 20, "x": 5})
    other = await make_group(name="Other")
    open_tariff = await make_tariff(
        name="Open",
        period_prices=[{"days": 90, "price_kopeks": 120000}, {"days": 30, "price_kopeks": 50000}],
        traffic_limit_gb=100,
        device_limit=2,
        tier_level=2,
    )
    vip_only = await make_tariff(
        name="VIP only", promo_group_ids=[vip.id], period_prices=[{"days": 7, "price_kopeks": 9900}]
    )
    await make_tariff(name="Off", is_active=False, period_prices=[{"days": 30, "price_kopeks": 1}])
    other_only = await make_tariff(name="Other only", promo_group_ids=[other.id])
    await admin.put(f"{BASE}/order", json={"tariff_ids": [vip_only["id"], open_tariff["id"]]})

    async with db.session() as session:
        options = await purchase_options(session, vip.id)
    assert [o.name for o in options] == ["VIP only", "Open"]
    vip_option, open_option = options
    assert vip_option.periods == (
        PeriodOption(days=7, price_kopeks=9900, original_price_kopeks=9900, discount_percent=0),
    )
    assert open_option.tariff_id == open_tariff["id"]
    assert (open_option.traffic_limit_gb, open_option.device_limit, open_option.tier_level) == (100, 2, 2)
    assert open_option.periods == (
        PeriodOption(days=30, price_kopeks=45000, original_price_kopeks=50000, discount_percent=10),
        PeriodOption(days=90, price_kopeks=96000, original_price_kopeks=120000, discount_percent=20),
    )

    async with db.session() as session:
        for_other = await purchase_options(session, other.id)
        for_nobody = await purchase_options(session, None)
        for_unknown = await purchase_options(session, 424242)
    assert [o.name for o in for_other] == ["Open", "Other only"]
    assert [p.price_kopeks for p in for_other[0].periods] == [50000, 120000]  # no discounts in Other
    assert for_other[1].tariff_id == other_only["id"] and for_other[1].periods == ()
    assert [o.name for o in for_nobody] == ["Open"]  # no group: only the open tariffs
    assert [o.name for o in for_unknown] == ["Open"]


async def test_options_for_a_user_follow_their_group(db, make_tariff, make_group, make_user):
    vip = await make_group(name="VIP", period_discounts={"30": 50})
    await make_tariff(name="Open", period_prices=[{"days": 30, "price_kopeks": 1000}])
    await make_tariff(name="VIP only", promo_group_ids=[vip.id])
    member = await make_user(promo_group_id=vip.id)
    outsider = await make_user()  # the default group
    async with db.session() as session:
        mine = await purchase_options_for_user(session, member.id)
        theirs = await purchase_options_for_user(session, outsider.id)
        nobody = await purchase_options_for_user(session, 999_999)
        impossible = await purchase_options_for_user(session, 2**40)
    assert mine is not None and [o.name for o in mine] == ["Open", "VIP only"]
    assert mine[0].periods[0].price_kopeks == 500
    assert theirs is not None and [o.name for o in theirs] == ["Open"]
    assert theirs[0].periods[0].price_kopeks == 1000
    assert nobody is None and impossible is None


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

"""The cabinet's referral page over HTTP (tag Cabinet Referral)."""

from __future__ import annotations

import itertools

import pytest
from subsvc_referrals.api import update_referral_settings

_refs = itertools.count(1)


@pytest.fixture
def pay(new_payment, credit, outbox, rows, wait_for):
    async def run(user_id: int, amount: int) -> None:
        reference = f"cab-{next(_refs)}"
        await new_payment(user_id, amount, provider_payment_id=reference)
        await credit(reference, amount)
        from subsvc.events import OutboxEvent

        await wait_for(lambda: _all_dispatched(rows, OutboxEvent))

    return run


async def _all_dispatched(rows, model) -> bool:
    return all(row.dispatched_at is not None for row in await rows(model))


async def test_referral_info_list_and_earnings(member, member_user, make_user, pay):
    first = await make_user(username="first", first_name="Fay", referred_by_id=member_user.id)
    await make_user(username="second", referred_by_id=member_user.id)
    await pay(first.id, 20_000)

    info = (await member.get("/cabinet/referral")).json()
    assert info["referral_code"] == member_user.referral_code
    assert info["referral_link"].endswith(f"?ref={member_user.referral_code}")
    assert info["total_referrals"] == 2
    assert info["active_referrals"] == 0
    assert info["total_earnings_kopeks"] == 15_000
    assert info["total_earnings_rubles"] == 150.0
    assert info["commission_percent"] == 25
    assert info["available_balance_kopeks"] == 15_000
    assert info["withdrawn_kopeks"] == 0

    listed = (await member.get("/cabinet/referral/list", params={"per_page": 1})).json()
    assert listed["total"] == 2 and listed["pages"] == 2 and len(listed["items"]) == 1
    everyone = (await member.get("/cabinet/referral/list")).json()["items"]
    assert {item["username"]: item["has_paid"] for item in everyone} == {"first": True, "second": False}
    assert all(item["has_subscription"] is False for item in everyone)

    earnings = (await member.get("/cabinet/referral/earnings")).json()
    assert earnings["total"] == 1 and earnings["total_amount_kopeks"] == 15_000
    (item,) = earnings["items"]
    assert item["reason"] == "referral_first_topup"
    assert (item["referral_username"], item["referral_first_name"]) == ("first", "Fay")
    assert item["amount_rubles"] == 150.0 and item["campaign_name"] is None


async def test_a_user_without_referrals(member, member_user):
    info = (await member.get("/cabinet/referral")).json()
    assert (info["total_referrals"], info["total_earnings_kopeks"], info["available_balance_kopeks"]) == (
        0,
        0,
        0,
    )
    earnings = (await member.get("/cabinet/referral/earnings")).json()
    assert earnings == {
        "items": [],
        "total": 0,
        "total_amount_kopeks": 0,
        "total_amount_rubles": 0.0,
        "page": 1,
        "per_page": 20,
        "pages": 0,
    }


@pytest.mark.parametrize("params", [{"page": 0}, {"per_page": 0}, {"per_page": 101}])
async def test_bad_paging_is_422(member, member_user, params):
    assert (await member.get("/cabinet/referral/list", params=params)).status_code == 422
    assert (await member.get("/cabinet/referral/earnings", params=params)).status_code == 422


async def test_terms_are_public_and_follow_the_stored_settings(app, db, anon_client):
    terms = (await anon_client.get("/cabinet/referral/terms")).json()
    assert terms["is_enabled"] is True
    assert (terms["commission_percent"], terms["minimum_topup_kopeks"], terms["minimum_topup_rubles"]) == (
        25,
        10_000,
        100.0,
    )
    assert terms["first_payment_commission_percent"] is None
    async with db.session() as session:
        await update_referral_settings(
            app,
            session,
            {"commission_percent": 30, "recurring_commission_tiers": "0:10,5:20", "enabled": False},
        )
        await session.commit()
    terms = (await anon_client.get("/cabinet/referral/terms")).json()
    assert (terms["commission_percent"], terms["recurring_commission_tiers"], terms["is_enabled"]) == (
        30,
        "0:10,5:20",
        False,
    )


@pytest.mark.parametrize(
    "values",
    [
        {"commission_percent": 101},
        {"recurring_commission_tiers": "x"},
        {"nope": 1},
        {"enabled": "yes"},
        {"minimum_topup_kopeks": -1},
    ],
)
async def test_bad_settings_are_refused_and_nothing_is_stored(app, db, anon_client, values):
    async with db.session() as session:
        with pytest.raises(ValueError):
            await update_referral_settings(app, session, values)
    assert (await anon_client.get("/cabinet/referral/terms")).json()["commission_percent"] == 25


async def test_the_referral_page_needs_a_login(anon_client):
    assert (await anon_client.get("/cabinet/referral")).status_code == 401


async def test_another_instance_s_change_arrives_through_the_bus(app, db, anon_client, wait_for):
    """A value stored by another instance is not seen until its message arrives on the bus."""
    from sqlalchemy import insert
    from subsvc_referrals.models import ReferralSetting
    from subsvc_referrals.store import INVALIDATE_CHANNEL

    from subsvc.services import services

    assert (await anon_client.get("/cabinet/referral/terms")).json()["commission_percent"] == 25  # cached now
    async with db.session() as session:  # the other instance's write
        await session.exec(insert(ReferralSetting).values(key="commission_percent", value=40))
        await session.commit()
    assert (await anon_client.get("/cabinet/referral/terms")).json()["commission_percent"] == 25
    await services(app).bus.publish(INVALIDATE_CHANNEL, "*")

    async def seen() -> bool:
        return (await anon_client.get("/cabinet/referral/terms")).json()["commission_percent"] == 40

    await wait_for(seen)

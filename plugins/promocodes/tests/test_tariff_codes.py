"""4.1.0: a code bound to a tariff (`tariff_id`, named in every record by `tariff_name`) and
the activation's `subscription_id` (which of a user's subscriptions gets the days and traffic)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from subsvc_promocodes.models import PromoCode, PromoCodeUse
from subsvc_subscriptions.models import Subscription

from subsvc.db import utcnow

ADMIN = "/cabinet/admin/promocodes"
WEB = "/promo-codes"
ACTIVATE = "/cabinet/promocode/activate"
TARIFFS = "/cabinet/admin/tariffs"


@pytest.fixture
def make_tariff(admin):
    async def make(name: str) -> dict:
        response = await admin.post(TARIFFS, json={"name": name})
        assert response.status_code == 200
        return response.json()

    return make


@pytest.fixture
def subscription_of(db):
    """``await subscription_of(user_id, tariff_id)``: a second live subscription of the user on
    that tariff (multi-tariff), written as the sales plugin would have."""

    async def add(user_id: int, tariff_id: int | None) -> int:
        now = utcnow()
        row = Subscription(
            user_id=user_id,
            status="active",
            start_date=now,
            end_date=now + timedelta(days=10),
            tariff_id=tariff_id,
            short_id=f"s{user_id}t{tariff_id}",
            created_at=now,
            updated_at=now,
        )
        async with db.session() as session:
            session.add(row)
            await session.commit()
            assert row.id is not None
            return row.id

    return add


async def _put_on_tariff(db, subscription_id: int, tariff_id: int) -> None:
    async with db.session() as session:
        table = Subscription.__table__
        await session.exec(table.update().where(table.c.id == subscription_id).values(tariff_id=tariff_id))
        await session.commit()


async def test_tariff_id_and_name_in_every_record(admin, client, make_tariff):
    pro = await make_tariff("Pro")
    created = await admin.post(
        ADMIN,
        json={"code": "PRO7", "type": "subscription_days", "subscription_days": 7, "tariff_id": pro["id"]},
    )
    assert created.status_code == 201
    assert (created.json()["tariff_id"], created.json()["tariff_name"]) == (pro["id"], "Pro")
    code_id = created.json()["id"]
    detail = (await admin.get(f"{ADMIN}/{code_id}")).json()
    assert (detail["tariff_id"], detail["tariff_name"]) == (pro["id"], "Pro")
    [item] = (await admin.get(ADMIN)).json()["items"]
    assert (item["tariff_id"], item["tariff_name"]) == (pro["id"], "Pro")
    assert (await client.get(f"{WEB}/{code_id}")).json()["tariff_name"] == "Pro"
    await admin.put(f"{TARIFFS}/{pro['id']}", json={"name": "Pro Max"})
    assert (await admin.get(f"{ADMIN}/{code_id}")).json()["tariff_name"] == "Pro Max"


async def test_patch_binds_keeps_and_clears_the_tariff(admin, make_tariff):
    pro, lite = await make_tariff("Pro"), await make_tariff("Lite")
    code = (
        await admin.post(ADMIN, json={"code": "B", "type": "balance", "balance_bonus_kopeks": 100})
    ).json()
    assert (code["tariff_id"], code["tariff_name"]) == (None, None)
    bound = (await admin.patch(f"{ADMIN}/{code['id']}", json={"tariff_id": pro["id"]})).json()
    assert bound["tariff_name"] == "Pro"
    kept = (await admin.patch(f"{ADMIN}/{code['id']}", json={"max_uses": 5})).json()
    assert kept["tariff_id"] == pro["id"]
    moved = (await admin.patch(f"{ADMIN}/{code['id']}", json={"tariff_id": lite["id"]})).json()
    assert moved["tariff_name"] == "Lite"
    cleared = (await admin.patch(f"{ADMIN}/{code['id']}", json={"tariff_id": 0})).json()
    assert (cleared["tariff_id"], cleared["tariff_name"]) == (None, None)
    await admin.patch(f"{ADMIN}/{code['id']}", json={"tariff_id": pro["id"]})
    cleared = (await admin.patch(f"{ADMIN}/{code['id']}", json={"tariff_id": None})).json()
    assert cleared["tariff_id"] is None


async def test_an_unknown_tariff_is_400_and_a_deleted_one_unbinds(admin, make_tariff, rows):
    refused = await admin.post(
        ADMIN, json={"code": "X", "type": "balance", "balance_bonus_kopeks": 1, "tariff_id": 999}
    )
    assert refused.status_code == 400 and refused.json() == {"detail": "Tariff not found"}
    code = (await admin.post(ADMIN, json={"code": "Y", "type": "balance", "balance_bonus_kopeks": 1})).json()
    refused = await admin.patch(f"{ADMIN}/{code['id']}", json={"tariff_id": 999})
    assert refused.status_code == 400 and refused.json() == {"detail": "Tariff not found"}
    gone = await make_tariff("Gone")
    await admin.patch(f"{ADMIN}/{code['id']}", json={"tariff_id": gone["id"]})
    assert (await admin.delete(f"{TARIFFS}/{gone['id']}")).status_code == 200
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.tariff_id is None


async def test_a_tariff_bound_code_goes_to_the_subscription_of_its_tariff(
    cabinet, make_user, make_subscription, make_tariff, admin, db, subscription_of, rows
):
    pro, lite = await make_tariff("Pro"), await make_tariff("Lite")
    user = await make_user()
    first = await make_subscription(user["id"], duration_days=10)
    await _put_on_tariff(db, first["id"], lite["id"])
    second = await subscription_of(user["id"], pro["id"])
    await admin.post(
        ADMIN,
        json={"code": "PRO7", "type": "subscription_days", "subscription_days": 7, "tariff_id": pro["id"]},
    )
    async with cabinet(user["id"]) as http:
        response = await http.post(ACTIVATE, json={"code": "PRO7"})
    assert response.status_code == 200
    (on_pro,) = await rows(Subscription, id=second)
    (on_lite,) = await rows(Subscription, id=first["id"])
    assert on_pro.end_date - on_pro.start_date == timedelta(days=17)
    assert on_lite.end_date == datetime.fromisoformat(first["end_date"])


async def test_subscription_id_names_the_subscription_and_must_fit_the_tariff(
    cabinet, make_user, make_subscription, make_tariff, admin, db, subscription_of, rows
):
    pro, lite = await make_tariff("Pro"), await make_tariff("Lite")
    user, other = await make_user(), await make_user()
    first = await make_subscription(user["id"], duration_days=10)
    await _put_on_tariff(db, first["id"], lite["id"])
    second = await subscription_of(user["id"], pro["id"])
    strangers = await make_subscription(other["id"], duration_days=10)
    await admin.post(ADMIN, json={"code": "ANY", "type": "subscription_days", "subscription_days": 3})
    await admin.post(
        ADMIN,
        json={"code": "PRO", "type": "subscription_days", "subscription_days": 5, "tariff_id": pro["id"]},
    )
    async with cabinet(user["id"]) as http:
        wrong = await http.post(ACTIVATE, json={"code": "PRO", "subscription_id": first["id"]})
        foreign = await http.post(ACTIVATE, json={"code": "ANY", "subscription_id": strangers["id"]})
        named = await http.post(ACTIVATE, json={"code": "ANY", "subscription_id": second})
    assert wrong.status_code == 400
    assert wrong.json() == {"detail": "This promo code is only valid for a subscription of another tariff"}
    assert foreign.status_code == 400 and foreign.json() == {"detail": "Subscription not found"}
    assert named.status_code == 200
    (on_pro,) = await rows(Subscription, id=second)
    assert on_pro.end_date - on_pro.start_date == timedelta(days=13)
    (on_lite,) = await rows(Subscription, id=first["id"])
    assert on_lite.end_date == datetime.fromisoformat(first["end_date"])
    assert [use.user_id for use in await rows(PromoCodeUse)] == [user["id"]]  # refusals left nothing


async def test_a_tariff_bound_code_without_a_subscription_of_the_tariff_is_refused(
    cabinet, make_user, make_subscription, make_tariff, admin, rows
):
    pro = await make_tariff("Pro")
    user = await make_user()
    await make_subscription(user["id"], duration_days=10)  # classic, no tariff
    code = (
        await admin.post(
            ADMIN,
            json={"code": "PRO", "type": "subscription_days", "subscription_days": 5, "tariff_id": pro["id"]},
        )
    ).json()
    async with cabinet(user["id"]) as http:
        response = await http.post(ACTIVATE, json={"code": "PRO"})
    assert response.status_code == 400
    assert response.json() == {"detail": "This promo code requires an active or expired subscription"}
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 0

"""Discount codes: the personal discount they grant (one at a time, with its validity), the
user's and the administrator's deactivation (the activation undone), and the hooks through
which another plugin's discounts (promo offers) count."""

from __future__ import annotations

import types
from datetime import timedelta
from typing import Any

import pytest
from subsvc_promocodes.models import PromoCode, PromoCodeDiscount, PromoCodeUse
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl

ACTIVATE = "/cabinet/promocode/activate"
DEACTIVATE = "/cabinet/promocode/deactivate-discount"
ADMIN_DEACTIVATE = "/cabinet/admin/promocodes/deactivate-discount"
ACTIVE_DISCOUNT = {
    "detail": "You already have an active discount. Deactivate it first via /deactivate-discount"
}


@pytest.fixture
def as_user(cabinet):
    """``await as_user(user_id, "POST", path, json=...)``: that user's request."""

    async def send(user_id: int, method: str, path: str, **kwargs: Any):
        async with cabinet(user_id) as http:
            return await http.request(method, path, **kwargs)

    return send


async def test_a_discount_code_grants_a_discount_for_its_hours(make_user, make_code, as_user, rows):
    user = await make_user()
    code = await make_code(code="SALE", type="discount", balance_bonus_kopeks=20, subscription_days=48)
    before = utcnow()
    response = await as_user(user["id"], "POST", ACTIVATE, json={"code": "sale"})
    assert response.status_code == 200
    body = response.json()
    assert body["bonus_description"] == "Получена скидка 20% (действует 48 ч.)"
    assert (body["balance_before"], body["balance_after"]) == (0.0, 0.0)
    (discount,) = await rows(PromoCodeDiscount)
    assert (discount.user_id, discount.promocode_id, discount.code, discount.percent) == (
        user["id"],
        code["id"],
        "SALE",
        20,
    )
    assert before + timedelta(hours=48) <= discount.expires_at <= utcnow() + timedelta(hours=48)
    (stored,) = await rows(User, id=user["id"])
    assert stored.balance_kopeks == 0  # the percent is not money


async def test_zero_hours_hold_until_the_first_purchase(make_user, make_code, as_user, rows):
    user = await make_user()
    await make_code(code="UNTIL", type="discount", balance_bonus_kopeks=35, subscription_days=0)
    body = (await as_user(user["id"], "POST", ACTIVATE, json={"code": "UNTIL"})).json()
    assert body["bonus_description"] == "Получена скидка 35% до первой покупки"
    (discount,) = await rows(PromoCodeDiscount)
    assert (discount.percent, discount.expires_at) == (35, None)


async def test_one_discount_at_a_time(make_user, make_code, as_user, rows):
    user = await make_user()
    await make_code(code="D1", type="discount", balance_bonus_kopeks=10, subscription_days=24)
    second = await make_code(code="D2", type="discount", balance_bonus_kopeks=30, subscription_days=24)
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "D1"})).status_code == 200
    response = await as_user(user["id"], "POST", ACTIVATE, json={"code": "D2"})
    assert response.status_code == 400
    assert response.json() == ACTIVE_DISCOUNT
    (row,) = await rows(PromoCode, id=second["id"])
    assert row.current_uses == 0
    assert await rows(PromoCodeUse, promocode_id=second["id"]) == []
    (discount,) = await rows(PromoCodeDiscount)
    assert (discount.code, discount.percent) == ("D1", 10)


async def test_an_expired_discount_makes_way_for_a_new_one(make_user, make_code, as_user, rows, db):
    user = await make_user()
    await make_code(code="OLD", type="discount", balance_bonus_kopeks=10, subscription_days=1)
    await make_code(code="NEW", type="discount", balance_bonus_kopeks=40, subscription_days=0)
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "OLD"})).status_code == 200
    await _expire_discounts(db)
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "NEW"})).status_code == 200
    (discount,) = await rows(PromoCodeDiscount)
    assert (discount.code, discount.percent, discount.expires_at) == ("NEW", 40, None)


async def _expire_discounts(db) -> None:
    table = PromoCodeDiscount.__table__
    async with db.session() as session:
        await session.exec(table.update().values(expires_at=utcnow() - timedelta(minutes=1)))
        await session.commit()


async def test_deactivation_gives_the_discount_back_and_undoes_the_activation(
    make_user, make_code, as_user, rows
):
    user = await make_user()
    code = await make_code(
        code="BACK", type="discount", balance_bonus_kopeks=25, subscription_days=12, max_uses=3
    )
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "BACK"})).status_code == 200
    response = await as_user(user["id"], "POST", DEACTIVATE)
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "Discount promo code deactivated successfully",
        "deactivated_code": "BACK",
        "discount_percent": 25,
    }
    assert await rows(PromoCodeDiscount) == []
    assert await rows(PromoCodeUse) == []
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 0
    # the code may be activated again
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "BACK"})).status_code == 200


async def test_deactivation_moves_the_user_back_to_their_group(make_user, make_code, as_user, client, rows):
    base = (await client.post("/promo-groups", json={"name": "Base"})).json()
    club = (await client.post("/promo-groups", json={"name": "Club"})).json()
    user = await make_user()
    await make_code(
        code="CLUB", type="discount", balance_bonus_kopeks=15, subscription_days=5, promo_group_id=club["id"]
    )
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "CLUB"})).status_code == 200
    (stored,) = await rows(User, id=user["id"])
    assert stored.promo_group_id == club["id"]
    assert (await as_user(user["id"], "POST", DEACTIVATE)).status_code == 200
    (stored,) = await rows(User, id=user["id"])
    assert stored.promo_group_id == base["id"]


async def test_deactivation_without_a_discount_is_400(make_user, make_code, as_user, rows, db):
    user = await make_user()
    response = await as_user(user["id"], "POST", DEACTIVATE)
    assert response.status_code == 400
    assert response.json() == {"detail": "No active discount promo code found"}
    await make_code(code="GONE", type="discount", balance_bonus_kopeks=5, subscription_days=1)
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "GONE"})).status_code == 200
    await _expire_discounts(db)
    response = await as_user(user["id"], "POST", DEACTIVATE)
    assert response.status_code == 400
    assert response.json() == {"detail": "Discount has already expired"}
    assert len(await rows(PromoCodeUse)) == 1  # nothing was undone


async def test_the_administrator_deactivates_a_users_discount(admin, make_user, make_code, as_user, rows):
    user = await make_user()
    code = await make_code(code="ADM", type="discount", balance_bonus_kopeks=50, subscription_days=2)
    assert (await as_user(user["id"], "POST", ACTIVATE, json={"code": "ADM"})).status_code == 200
    response = await admin.post(f"{ADMIN_DEACTIVATE}/{user['id']}")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": f"Discount promo code deactivated for user {user['id']}",
        "deactivated_code": "ADM",
        "discount_percent": 50,
        "user_id": user["id"],
    }
    assert await rows(PromoCodeDiscount) == []
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 0
    again = await admin.post(f"{ADMIN_DEACTIVATE}/{user['id']}")
    assert again.status_code == 400
    assert again.json() == {"detail": "User has no active discount"}


@pytest.mark.parametrize("user_id", ["999999", "0", "-3", "2147483647"])
async def test_the_administrator_naming_nobody_is_404(admin, make_user, user_id):
    await make_user()
    response = await admin.post(f"{ADMIN_DEACTIVATE}/{user_id}")
    assert response.status_code == 404
    assert response.json() == {"detail": "User not found"}


async def test_the_administrator_naming_an_id_beyond_the_integer_column_is_422(admin, make_user):
    await make_user()
    response = await admin.post(f"{ADMIN_DEACTIVATE}/2147483648")
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["path", "user_id"], "less_than_equal")
    ]


# --- another plugin's discounts (a probe plugin implementing this plugin's hooks) ---------------


def _offers_plugin() -> types.ModuleType:
    """A plugin granting "offer" discounts kept in ``app.state.offer_discounts``."""
    module = types.ModuleType("offer_probe")
    module.PLUGIN_NAME = "offer_probe"

    @hookimpl
    def startup(app):
        app.state.offer_discounts = {}

    @hookimpl
    def other_active_discount(app, session, user_id):
        percent = app.state.offer_discounts.get(user_id)
        return None if percent is None else {"percent": percent, "expires_at": None, "source": "offer"}

    @hookimpl
    def deactivate_other_discount(app, session, user_id):
        return app.state.offer_discounts.pop(user_id, None)

    module.startup = startup
    module.other_active_discount = other_active_discount
    module.deactivate_other_discount = deactivate_other_discount
    return module


@pytest.fixture
def subsvc_plugins(subsvc_plugins):
    return [*subsvc_plugins, _offers_plugin()]


@pytest.fixture
def offer_discounts(app) -> dict[int, int]:
    return app.state.offer_discounts


async def test_an_offers_discount_blocks_a_discount_code(
    offer_discounts, make_user, make_code, as_user, rows
):
    user = await make_user()
    offer_discounts[user["id"]] = 15
    await make_code(code="CODE15", type="discount", balance_bonus_kopeks=15, subscription_days=1)
    response = await as_user(user["id"], "POST", ACTIVATE, json={"code": "CODE15"})
    assert response.status_code == 400
    assert response.json() == ACTIVE_DISCOUNT
    assert await rows(PromoCodeDiscount) == []
    # a user may not give back an offer's discount as if it were a code's
    response = await as_user(user["id"], "POST", DEACTIVATE)
    assert response.json() == {"detail": "No active discount promo code found"}
    assert offer_discounts == {user["id"]: 15}


async def test_the_administrator_clears_an_offers_discount(offer_discounts, admin, make_user):
    user = await make_user()
    offer_discounts[user["id"]] = 30
    response = await admin.post(f"{ADMIN_DEACTIVATE}/{user['id']}")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": f"Promo offer deactivated for user {user['id']}",
        "deactivated_code": None,
        "discount_percent": 30,
        "user_id": user["id"],
    }
    assert offer_discounts == {}

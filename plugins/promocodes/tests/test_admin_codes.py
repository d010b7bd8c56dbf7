"""`/cabinet/admin/promocodes`: creating, listing, reading, changing and deleting codes — the
record with its computed fields, the rules and their texts, and the rows left behind."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from subsvc_promocodes import rules
from subsvc_promocodes.models import PromoCode, PromoCodeDiscount, PromoCodeUse

from subsvc.db import utcnow

ADMIN = "/cabinet/admin/promocodes"
ACTIVATE = "/cabinet/promocode/activate"

RECORD_FIELDS = {
    "id",
    "code",
    "type",
    "balance_bonus_kopeks",
    "balance_bonus_rubles",
    "subscription_days",
    "traffic_gb",
    "max_uses",
    "current_uses",
    "uses_left",
    "is_active",
    "is_valid",
    "first_purchase_only",
    "valid_from",
    "valid_until",
    "promo_group_id",
    "tariff_id",
    "tariff_name",
    "created_by",
    "created_at",
    "updated_at",
}


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def test_create_answers_the_record_and_stores_the_code(admin, make_user, rows):
    admin_user = await make_user(messenger_id=900_000_001)  # the administrator of the token
    before = utcnow()
    body = {"code": "  summer25 ", "type": "balance", "balance_bonus_kopeks": 12_345}
    response = await admin.post(ADMIN, json=body)
    assert response.status_code == 201
    body = response.json()
    assert set(body) == RECORD_FIELDS
    assert body == {
        **body,
        "code": "SUMMER25",
        "type": "balance",
        "balance_bonus_kopeks": 12_345,
        "balance_bonus_rubles": 123.45,
        "subscription_days": 0,
        "max_uses": 1,
        "current_uses": 0,
        "uses_left": 1,
        "is_active": True,
        "is_valid": True,
        "first_purchase_only": False,
        "valid_until": None,
        "promo_group_id": None,
        "created_by": admin_user["id"],
    }
    assert before <= _at(body["valid_from"]) <= utcnow()
    assert _at(body["created_at"]).utcoffset() == timedelta(0)
    (row,) = await rows(PromoCode)
    assert (row.id, row.code, row.type, row.balance_bonus_kopeks, row.created_by) == (
        body["id"],
        "SUMMER25",
        "balance",
        12_345,
        admin_user["id"],
    )


async def test_an_administrator_without_a_user_row_creates_codes_of_nobody(admin):
    body = (await admin.post(ADMIN, json={"code": "X", "type": "balance", "balance_bonus_kopeks": 1})).json()
    assert body["created_by"] is None


async def test_unlimited_max_uses_is_stored_as_the_references_marker(make_code, rows):
    body = await make_code(max_uses=0)
    assert (body["max_uses"], body["uses_left"], body["is_valid"]) == (999_999, 999_999, True)
    (row,) = await rows(PromoCode)
    assert row.max_uses == 999_999


LATER = {"valid_from": "2030-01-02T00:00:00Z", "valid_until": "2030-01-01T00:00:00Z"}
BROKEN_RULES = [
    ({"code": "   ", "type": "balance", "balance_bonus_kopeks": 1}, rules.EMPTY_CODE),
    ({"type": "balance", "balance_bonus_kopeks": 0}, rules.BALANCE_NOT_POSITIVE),
    ({"type": "balance", "balance_bonus_kopeks": -5}, rules.BALANCE_NOT_POSITIVE),
    ({"type": "subscription_days"}, rules.DAYS_NOT_POSITIVE),
    ({"type": "trial_subscription", "subscription_days": -1}, rules.DAYS_NOT_POSITIVE),
    ({"type": "discount", "balance_bonus_kopeks": 0, "subscription_days": 24}, rules.DISCOUNT_PERCENT),
    ({"type": "discount", "balance_bonus_kopeks": 101}, rules.DISCOUNT_PERCENT),
    ({"type": "discount", "balance_bonus_kopeks": 10, "subscription_days": -1}, rules.DISCOUNT_HOURS),
    ({"type": "balance_and_days"}, rules.NOTHING_GRANTED),
    ({"type": "balance_and_days", "subscription_days": 5, "traffic_gb": -1}, rules.TRAFFIC_NEGATIVE),
    (
        {"type": "balance_and_days", "balance_bonus_kopeks": -1, "subscription_days": 5},
        rules.BALANCE_NEGATIVE,
    ),
    ({"type": "promo_group", "subscription_days": -2, "promo_group_id": 1}, rules.DAYS_NEGATIVE),
    ({"type": "promo_group"}, rules.GROUP_REQUIRED),
    ({"type": "promo_group", "promo_group_id": 999_999}, rules.GROUP_NOT_FOUND),
    ({"type": "balance", "balance_bonus_kopeks": 1, **LATER}, rules.VALIDITY_ORDER),
]


def test_the_rule_texts_are_the_references():
    assert [rules.EMPTY_CODE, rules.BALANCE_NOT_POSITIVE, rules.DAYS_NOT_POSITIVE, rules.VALIDITY_ORDER] == [
        "Code must not be empty",
        "Balance bonus must be positive for balance promo codes",
        "Subscription days must be positive for this promo code type",
        "valid_from cannot be greater than valid_until",
    ]
    assert [rules.DISCOUNT_PERCENT, rules.DISCOUNT_HOURS, rules.NOTHING_GRANTED, rules.TRAFFIC_NEGATIVE] == [
        "Discount percent must be between 1 and 100",
        "Discount validity hours cannot be negative",
        "Bonus set must grant at least one of: balance, subscription days, traffic",
        "Traffic must not be negative",
    ]
    assert rules.MAX_USES_BELOW_CURRENT == "max_uses cannot be less than current uses"
    assert rules.DUPLICATE_CODE == "Promo code with this code already exists"


@pytest.mark.parametrize(("body", "detail"), BROKEN_RULES)
async def test_a_broken_rule_is_400_with_the_references_text_and_stores_nothing(admin, rows, body, detail):
    body.setdefault("code", "RULE")
    response = await admin.post(ADMIN, json=body)
    assert response.status_code == 400
    assert response.json() == {"detail": detail}
    assert await rows(PromoCode) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"code": "", "type": "balance"}, "code"),
        ({"code": "X" * 51, "type": "balance"}, "code"),
        ({"code": "X", "type": "gift"}, "type"),
        ({"code": "X", "type": "balance", "max_uses": -1}, "max_uses"),
        ({"code": "X", "type": "balance", "max_uses": 1_000_000}, "max_uses"),
        ({"code": "X", "type": "balance", "balance_bonus_kopeks": 2**63}, "balance_bonus_kopeks"),
        ({"code": "X", "type": "balance", "subscription_days": 2**31}, "subscription_days"),
        ({"type": "balance"}, "code"),
    ],
)
async def test_out_of_bounds_fields_are_422(admin, rows, body, field):
    response = await admin.post(ADMIN, json=body)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [["body", field]]
    assert await rows(PromoCode) == []


async def test_codes_are_unique_whatever_their_case_and_spaces(admin, make_code, rows):
    await make_code(code="WELCOME")
    body = {"code": " welcome", "type": "balance", "balance_bonus_kopeks": 1}
    response = await admin.post(ADMIN, json=body)
    assert response.status_code == 400
    assert response.json() == {"detail": "Promo code with this code already exists"}
    assert len(await rows(PromoCode)) == 1


async def test_naive_dates_are_utc_and_the_record_says_whether_the_code_is_valid_now(make_code):
    future = await make_code(valid_from="2999-01-01T10:00:00")
    assert future["valid_from"].startswith("2999-01-01T10:00:00")
    assert _at(future["valid_from"]).utcoffset() == timedelta(0)
    assert future["is_valid"] is False
    past = await make_code(valid_from="2000-01-01T00:00:00Z", valid_until="2001-01-01T00:00:00+03:00")
    assert past["valid_until"].startswith("2000-12-31T21:00:00")
    assert past["is_valid"] is False
    assert (await make_code(is_active=False))["is_valid"] is False
    assert (await make_code(valid_until=(utcnow() + timedelta(days=1)).isoformat()))["is_valid"] is True


async def test_list_is_newest_first_paged_and_filtered(admin, make_code):
    made = [await make_code(code=f"LIST{i}", is_active=i % 2 == 0) for i in range(5)]
    page = await admin.get(ADMIN, params={"limit": 2, "offset": 1})
    assert page.status_code == 200
    body = page.json()
    assert (body["total"], body["limit"], body["offset"]) == (5, 2, 1)
    assert [item["code"] for item in body["items"]] == ["LIST3", "LIST2"]
    assert set(body["items"][0]) == RECORD_FIELDS

    default = (await admin.get(ADMIN)).json()
    assert (default["limit"], default["offset"]) == (50, 0)
    assert [item["id"] for item in default["items"]] == [code["id"] for code in reversed(made)]

    active = (await admin.get(ADMIN, params={"is_active": "true"})).json()
    assert (active["total"], [i["code"] for i in active["items"]]) == (3, ["LIST4", "LIST2", "LIST0"])
    inactive = (await admin.get(ADMIN, params={"is_active": False, "limit": 1})).json()
    assert (inactive["total"], [i["code"] for i in inactive["items"]]) == (2, ["LIST3"])
    beyond = (await admin.get(ADMIN, params={"offset": 10})).json()
    assert (beyond["total"], beyond["items"]) == (5, [])


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 201}, {"offset": -1}, {"is_active": "maybe"}])
async def test_list_bounds_are_422(admin, params):
    response = await admin.get(ADMIN, params=params)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", next(iter(params))]


async def test_detail_counts_uses_and_lists_the_latest_with_their_users(
    admin, make_code, make_user, cabinet, db
):
    code = await make_code(code="MANY", max_uses=0, balance_bonus_kopeks=100)
    users = [await make_user(username=f"u{i}", first_name="Ann", last_name=f"N{i}") for i in range(3)]
    for user in users:
        async with cabinet(user["id"]) as http:
            assert (await http.post(ACTIVATE, json={"code": "many"})).status_code == 200
    uses = PromoCodeUse.__table__
    async with db.session() as session:  # the first use happened yesterday
        first = (await session.exec(uses.select().order_by(uses.c.id))).first()
        yesterday = utcnow() - timedelta(days=1, hours=1)
        await session.exec(uses.update().where(uses.c.id == first.id).values(used_at=yesterday))
        await session.commit()

    response = await admin.get(f"{ADMIN}/{code['id']}")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == RECORD_FIELDS | {"total_uses", "today_uses", "recent_uses"}
    assert (body["total_uses"], body["today_uses"], body["current_uses"]) == (3, 2, 3)
    recent = body["recent_uses"]
    assert [u["user_id"] for u in recent] == [users[2]["id"], users[1]["id"], users[0]["id"]]
    assert recent[0] == {
        **recent[0],
        "user_username": "u2",
        "user_full_name": "Ann N2",
        "user_messenger_id": users[2]["messenger_id"],
    }
    assert datetime.fromisoformat(recent[0]["used_at"]) > datetime.fromisoformat(recent[2]["used_at"])


@pytest.mark.parametrize("promocode_id", ["999999", "0", "-1", "2147483647"])
async def test_unknown_ids_are_404(admin, make_code, promocode_id):
    await make_code()
    for method, body in (("GET", None), ("PATCH", {"is_active": False}), ("DELETE", None)):
        response = await admin.request(method, f"{ADMIN}/{promocode_id}", json=body)
        assert response.status_code == 404
        assert response.json() == {"detail": "Promo code not found"}


@pytest.mark.parametrize(
    ("promocode_id", "error"), [("2147483648", "less_than_equal"), ("-2147483649", "greater_than_equal")]
)
async def test_ids_beyond_the_integer_column_are_422(admin, make_code, promocode_id, error):
    await make_code()
    for method, body in (("GET", None), ("PATCH", {"is_active": False}), ("DELETE", None)):
        response = await admin.request(method, f"{ADMIN}/{promocode_id}", json=body)
        assert response.status_code == 422
        assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
            (["path", "promocode_id"], error)
        ]


async def test_a_path_id_that_is_not_a_number_is_422(admin):
    response = await admin.get(f"{ADMIN}/abc")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["path", "promocode_id"]


async def test_update_changes_the_given_fields(admin, make_code, rows, client):
    group = (await client.post("/promo-groups", json={"name": "VIP"})).json()
    code = await make_code(code="OLD", valid_until="2999-01-01T00:00:00Z")
    response = await admin.patch(
        f"{ADMIN}/{code['id']}",
        json={
            "code": " new ",
            "balance_bonus_kopeks": 700,
            "max_uses": 5,
            "first_purchase_only": True,
            "promo_group_id": group["id"],
            "is_active": None,  # null: unchanged
        },
    )
    assert response.status_code == 200
    body = response.json()
    assert body == {
        **body,
        "code": "NEW",
        "balance_bonus_kopeks": 700,
        "balance_bonus_rubles": 7.0,
        "max_uses": 5,
        "uses_left": 5,
        "first_purchase_only": True,
        "promo_group_id": group["id"],
        "is_active": True,
    }
    assert _at(body["updated_at"]) > _at(code["updated_at"])
    assert body["valid_until"].startswith("2999-01-01")
    clear = {"valid_until": None, "promo_group_id": 0}
    cleared = (await admin.patch(f"{ADMIN}/{code['id']}", json=clear)).json()
    assert (cleared["valid_until"], cleared["promo_group_id"], cleared["code"]) == (None, None, "NEW")
    unlimited = (await admin.patch(f"{ADMIN}/{code['id']}", json={"max_uses": 0})).json()
    assert unlimited["max_uses"] == 999_999
    (row,) = await rows(PromoCode)
    assert (row.code, row.max_uses, row.valid_until, row.promo_group_id) == ("NEW", 999_999, None, None)


async def test_an_update_that_changes_nothing_keeps_updated_at(admin, make_code):
    code = await make_code(balance_bonus_kopeks=500)
    same = (await admin.patch(f"{ADMIN}/{code['id']}", json={"balance_bonus_kopeks": 500})).json()
    assert same["updated_at"] == code["updated_at"]


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"code": "taken"}, rules.DUPLICATE_CODE),
        ({"code": "  "}, rules.EMPTY_CODE),
        ({"type": "discount"}, rules.DISCOUNT_PERCENT),  # 10,000 as a percent
        ({"type": "subscription_days"}, rules.DAYS_NOT_POSITIVE),
        ({"balance_bonus_kopeks": 0}, rules.BALANCE_NOT_POSITIVE),
        ({"valid_from": "2999-01-01T00:00:00Z", "valid_until": "2998-01-01T00:00:00Z"}, rules.VALIDITY_ORDER),
        ({"valid_from": "2999-01-01T00:00:00Z"}, rules.VALIDITY_ORDER),  # after the stored valid_until
        ({"promo_group_id": 999_999}, rules.GROUP_NOT_FOUND),
        ({"type": "promo_group"}, rules.GROUP_REQUIRED),
    ],
)
async def test_an_update_breaking_a_rule_is_400_and_changes_nothing(admin, make_code, reload, change, detail):
    await make_code(code="TAKEN")
    code = await make_code(code="MINE", balance_bonus_kopeks=10_000, valid_until="2998-06-01T00:00:00Z")
    response = await admin.patch(f"{ADMIN}/{code['id']}", json=change)
    assert response.status_code == 400
    assert response.json() == {"detail": detail}
    row = await reload(PromoCode, code["id"])
    assert (row.code, row.type, row.balance_bonus_kopeks) == ("MINE", "balance", 10_000)


async def test_max_uses_cannot_go_below_the_uses_made(admin, make_code, make_user, cabinet):
    code = await make_code(code="TWO", max_uses=3)
    for _ in range(2):
        user = await make_user()
        async with cabinet(user["id"]) as http:
            assert (await http.post(ACTIVATE, json={"code": "TWO"})).status_code == 200
    response = await admin.patch(f"{ADMIN}/{code['id']}", json={"max_uses": 1})
    assert response.status_code == 400
    assert response.json() == {"detail": "max_uses cannot be less than current uses"}
    body = (await admin.patch(f"{ADMIN}/{code['id']}", json={"max_uses": 2})).json()
    assert (body["max_uses"], body["current_uses"], body["uses_left"], body["is_valid"]) == (2, 2, 0, False)


async def test_delete_removes_the_code_and_its_uses_but_not_the_discounts_it_granted(
    admin, make_code, make_user, cabinet, rows
):
    code = await make_code(code="GONE", type="discount", balance_bonus_kopeks=15, subscription_days=0)
    user = await make_user()
    async with cabinet(user["id"]) as http:
        assert (await http.post(ACTIVATE, json={"code": "gone"})).status_code == 200
    other = await make_code(code="STAYS")
    response = await admin.delete(f"{ADMIN}/{code['id']}")
    assert response.status_code == 204
    assert response.content == b""
    assert [c.code for c in await rows(PromoCode)] == ["STAYS"]
    assert await rows(PromoCodeUse) == []
    (discount,) = await rows(PromoCodeDiscount)
    assert (discount.user_id, discount.promocode_id, discount.code) == (user["id"], None, "GONE")
    assert discount.percent == 15
    assert (await admin.get(f"{ADMIN}/{other['id']}")).status_code == 200
    assert (await admin.delete(f"{ADMIN}/{code['id']}")).status_code == 404


async def test_deleting_a_promo_group_switches_off_its_group_codes(admin, client, make_code, reload):
    await client.post("/promo-groups", json={"name": "Base"})
    vip = (await client.post("/promo-groups", json={"name": "VIP"})).json()
    group_code = await make_code(type="promo_group", promo_group_id=vip["id"])
    bonus_code = await make_code(type="balance", promo_group_id=vip["id"])
    assert (await client.delete(f"/promo-groups/{vip['id']}")).status_code == 204
    group_row = await reload(PromoCode, group_code["id"])
    bonus_row = await reload(PromoCode, bonus_code["id"])
    assert (group_row.promo_group_id, group_row.is_active) == (None, False)
    assert (bonus_row.promo_group_id, bonus_row.is_active) == (None, True)
    assert datetime.now(UTC) >= group_row.updated_at > _at(group_code["updated_at"])

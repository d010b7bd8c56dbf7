"""`/cabinet/admin/payment-methods`: the methods' configuration (rows made on the first look,
overrides and resets, order, refusals as 422), and what it changes for a user in
`GET /cabinet/balance/payment-methods` and the top-up's method check. This module is a
provider plugin offering three methods; `fakepay` is served by the test provider."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from sqlmodel import select
from starlette.applications import Starlette
from subsvc_payments.api import PaymentMethodInfo
from subsvc_payments.models import PaymentMethodConfig

from subsvc.db import Database
from subsvc.hookspecs import hookimpl
from subsvc.testing import recorded_statements

PLUGIN_NAME = "configured_providers"
REQUIRES = ("payments",)
ADMIN = "/cabinet/admin/payment-methods"
METHODS = "/cabinet/balance/payment-methods"
TOPUP = "/cabinet/balance/topup"
UNAVAILABLE = {"detail": "Invalid or unavailable payment method"}
CARD = PaymentMethodInfo(
    id="fakepay",
    name="Fake card",
    min_amount_kopeks=10_000,
    max_amount_kopeks=1_000_000,
    description="Visa, MasterCard",
    options=[{"id": "card", "name": "Card", "description": None}, {"id": "sbp", "name": "SBP"}],
    quick_amounts=(50_000, 100_000),
)
STARS = PaymentMethodInfo(id="stars", name="Stars", min_amount_kopeks=100, max_amount_kopeks=500_000)
CRYPTO = PaymentMethodInfo(id="crypto", name="Crypto", min_amount_kopeks=5_000, max_amount_kopeks=900_000)
OFFERED: list[PaymentMethodInfo] = []
SERVED: dict[str, Any] = {}


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo]:
    return list(OFFERED)


@hookimpl
def payments_provider(app: Starlette, method: str) -> Any:
    return SERVED.get(method)


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["payments", sys.modules[__name__]]


@pytest.fixture(autouse=True)
def offered(provider_plugin: ModuleType) -> Iterator[Any]:
    """Three methods offered; ``fakepay`` served by the test provider (answered)."""
    OFFERED[:] = [CARD, STARS, CRYPTO]
    SERVED.clear()
    SERVED["fakepay"] = provider = provider_plugin.FakeProvider()
    yield provider
    OFFERED.clear()
    SERVED.clear()


async def configs(db: Database) -> dict[str, PaymentMethodConfig]:
    async with db.session() as session:
        return {row.method_id: row for row in (await session.exec(select(PaymentMethodConfig))).all()}


async def visible(http: Any) -> list[str]:
    response = await http.get(METHODS)
    assert response.status_code == 200, response.text
    return [method["id"] for method in response.json()]


async def put(admin: Any, method_id: str, **body: Any) -> dict[str, Any]:
    response = await admin.put(f"{ADMIN}/{method_id}", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_the_first_look_makes_a_row_per_offered_method_in_the_plugins_order(admin, admin_user, db):
    assert await configs(db) == {}
    response = await admin.get(ADMIN)
    assert response.status_code == 200
    listed = response.json()
    assert [m["method_id"] for m in listed] == ["fakepay", "stars", "crypto"]
    stored = await configs(db)
    assert {k: v.sort_order for k, v in stored.items()} == {"fakepay": 0, "stars": 1, "crypto": 2}
    created = stored["fakepay"].created_at.isoformat().replace("+00:00", "Z")
    assert listed[0] | {"created_at": created, "updated_at": created} == {
        "method_id": "fakepay",
        "sort_order": 0,
        "is_enabled": True,
        "display_name": None,
        "default_display_name": "Fake card",
        "description": None,
        "default_description": "Visa, MasterCard",
        "sub_options": None,
        "available_sub_options": [{"id": "card", "name": "Card"}, {"id": "sbp", "name": "SBP"}],
        "quick_amounts": None,
        "default_quick_amounts": [50_000, 100_000],
        "min_amount_kopeks": None,
        "max_amount_kopeks": None,
        "default_min_amount_kopeks": 10_000,
        "default_max_amount_kopeks": 1_000_000,
        "user_type_filter": "all",
        "first_topup_filter": "any",
        "promo_group_filter_mode": "all",
        "allowed_promo_group_ids": [],
        "open_url_direct": False,
        "is_provider_configured": True,
        "created_at": created,
        "updated_at": created,
    }
    assert listed[1]["available_sub_options"] is None
    OFFERED[:] = [CARD, STARS]  # crypto's provider no longer configured: kept, its defaults unknown
    again = (await admin.get(ADMIN)).json()
    assert [(m["method_id"], m["is_provider_configured"]) for m in again] == [
        ("fakepay", True),
        ("stars", True),
        ("crypto", False),
    ]
    assert (again[2]["default_display_name"], again[2]["default_max_amount_kopeks"]) == ("crypto", 0)


async def test_one_method_and_the_unknown_one(admin, admin_user, db):
    response = await admin.get(f"{ADMIN}/stars")
    assert response.status_code == 200
    assert (response.json()["method_id"], response.json()["default_display_name"]) == ("stars", "Stars")
    assert set(await configs(db)) == {"fakepay", "stars", "crypto"}
    for answer in (await admin.get(f"{ADMIN}/nope"), await admin.put(f"{ADMIN}/nope", json={})):
        assert (answer.status_code, answer.json()) == (404, {"detail": "Payment method not found: nope"})


async def test_overrides_change_what_the_user_sees_and_may_pay(
    admin, admin_user, member, member_user, offered
):
    before = (await member.get(METHODS)).json()
    assert before[0]["name"] == "Fake card" and before[0]["quick_amounts"] == [50_000, 100_000]
    body = {
        "display_name": "Карта",
        "description": "Любая карта",
        "sub_options": {"sbp": False},
        "quick_amounts": [20_000, 30_000, 900_000],
        "min_amount_kopeks": 20_000,
        "max_amount_kopeks": 800_000,
        "open_url_direct": True,
    }
    answer = await put(admin, "fakepay", **body)
    assert {key: answer[key] for key in body} == body
    assert (answer["default_display_name"], answer["default_min_amount_kopeks"]) == ("Fake card", 10_000)
    (card, *_) = (await member.get(METHODS)).json()
    assert card == {
        "id": "fakepay",
        "name": "Карта",
        "description": "Любая карта",
        "min_amount_kopeks": 20_000,
        "max_amount_kopeks": 800_000,
        "is_available": True,
        "options": [{"id": "card", "name": "Card", "description": None}],
        "quick_amounts": [20_000, 30_000],  # 900_000 is above the maximum
        "open_url_direct": True,
    }
    refused = {
        "Invalid payment option: sbp": {"amount_kopeks": 50_000, "payment_option": "sbp"},
        "Minimum amount is 200.00 RUB": {"amount_kopeks": 15_000},
        "Maximum amount is 8000.00 RUB": {"amount_kopeks": 900_000},
    }
    for detail, fields in refused.items():
        response = await member.post(TOPUP, json={"payment_method": "fakepay", **fields})
        assert (response.status_code, response.json()) == (400, {"detail": detail})
    paid = await member.post(TOPUP, json={"payment_method": "fakepay", "amount_kopeks": 15_000 + 5_000})
    assert paid.status_code == 200, paid.text
    assert [request.amount_kopeks for request in offered.created] == [20_000]
    pending = (await member.get("/cabinet/balance/pending-payments")).json()["items"]
    assert pending[0]["method_display"] == "Карта"


async def test_null_and_the_reset_flags_put_the_defaults_back(admin, admin_user, member, member_user):
    changed = {
        "display_name": "X",
        "description": "Y",
        "quick_amounts": [30_000],
        "min_amount_kopeks": 30_000,
    }
    await put(admin, "fakepay", **changed, max_amount_kopeks=40_000)
    answer = await put(admin, "fakepay", display_name=None, reset_description=True, reset_max_amount=True)
    assert (answer["display_name"], answer["description"], answer["max_amount_kopeks"]) == (None, None, None)
    assert (answer["min_amount_kopeks"], answer["quick_amounts"]) == (30_000, [30_000])
    answer = await put(
        admin, "fakepay", quick_amounts=[40_000], reset_quick_amounts=True, reset_min_amount=True
    )
    assert (answer["quick_amounts"], answer["min_amount_kopeks"]) == (None, None)  # the reset wins
    assert (await member.get(METHODS)).json()[0] | {"options": None} == {
        "id": "fakepay",
        "name": "Fake card",
        "description": "Visa, MasterCard",
        "min_amount_kopeks": 10_000,
        "max_amount_kopeks": 1_000_000,
        "is_available": True,
        "options": None,
        "quick_amounts": [50_000, 100_000],
        "open_url_direct": False,
    }


async def test_what_the_method_cannot_take_is_422_and_changes_nothing(admin, admin_user, client, db):
    group = await make_promo_group(client, "Gold")
    response = await admin.put(
        f"{ADMIN}/fakepay",
        json={
            "min_amount_kopeks": 2_000_000,  # above the provider's maximum
            "sub_options": {"card": True, "wire": False},
            "allowed_promo_group_ids": [group, 987_654],
            "is_enabled": False,
        },
    )
    assert response.status_code == 422
    errors = {tuple(item["loc"]): item["msg"] for item in response.json()["detail"]}
    assert errors == {
        ("body", "min_amount_kopeks"): "Value error, min_amount_kopeks (2000000) must not exceed "
        "max_amount_kopeks (1000000)",
        ("body", "sub_options"): "Value error, Unknown sub-options: wire",
        ("body", "allowed_promo_group_ids"): "Value error, Unknown promo groups: 987654",
    }
    too_low = await admin.put(f"{ADMIN}/fakepay", json={"max_amount_kopeks": 5_000})
    assert too_low.status_code == 422 and too_low.json()["detail"][0]["loc"] == ["body", "max_amount_kopeks"]
    shaped = await admin.put(f"{ADMIN}/fakepay", json={"user_type_filter": "bots", "quick_amounts": [0]})
    assert shaped.status_code == 422
    assert {tuple(item["loc"]) for item in shaped.json()["detail"]} == {
        ("body", "user_type_filter"),
        ("body", "quick_amounts", 0),
    }
    assert await configs(db) == {}  # the refused update's transaction made no row either
    config = (await admin.get(f"{ADMIN}/fakepay")).json()
    assert (config["is_enabled"], config["min_amount_kopeks"], config["sub_options"]) == (True, None, None)


async def test_a_disabled_method_is_not_offered_nor_taken(admin, admin_user, member, member_user):
    assert await visible(member) == ["fakepay", "stars", "crypto"]
    assert (await put(admin, "fakepay", is_enabled=False))["is_enabled"] is False
    assert await visible(member) == ["stars", "crypto"]
    response = await member.post(TOPUP, json={"payment_method": "fakepay", "amount_kopeks": 50_000})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Invalid or unavailable payment method"},
    )
    await put(admin, "fakepay", is_enabled=True)
    assert await visible(member) == ["fakepay", "stars", "crypto"]


async def test_every_sub_option_off_hides_the_method(admin, admin_user, member, member_user):
    await put(admin, "fakepay", sub_options={"card": False, "sbp": False})
    assert await visible(member) == ["stars", "crypto"]


async def test_the_order_puts_the_listed_first_and_the_others_after(admin, admin_user, member, member_user):
    response = await admin.put(f"{ADMIN}/order", json={"method_ids": ["crypto", "stars"]})
    assert response.status_code == 200
    assert [(m["method_id"], m["sort_order"]) for m in response.json()] == [
        ("crypto", 0),
        ("stars", 1),
        ("fakepay", 2),
    ]
    assert await visible(member) == ["crypto", "stars", "fakepay"]
    assert [m["method_id"] for m in (await admin.get(ADMIN)).json()] == ["crypto", "stars", "fakepay"]
    OFFERED.append(PaymentMethodInfo(id="late", name="Late", min_amount_kopeks=1, max_amount_kopeks=2))
    assert await visible(member) == ["crypto", "stars", "fakepay", "late"]
    refused = await admin.put(f"{ADMIN}/order", json={"method_ids": ["stars", "nope", "stars"]})
    assert refused.status_code == 422
    assert [(item["loc"], item["input"]) for item in refused.json()["detail"]] == [
        (["body", "method_ids", 1], "nope"),
        (["body", "method_ids", 2], "stars"),
    ]


async def test_the_account_type_filter(admin, admin_user, make_user, cabinet):
    by_messenger = await make_user(first_name="Bot user")
    by_email = await make_user(messenger_id=None, email="ann@example.com", auth_type="email")
    await put(admin, "stars", user_type_filter="messenger")
    await put(admin, "crypto", user_type_filter="email")
    async with cabinet(by_messenger.id) as http:
        assert await visible(http) == ["fakepay", "stars"]
    async with cabinet(by_email.id) as http:
        assert await visible(http) == ["fakepay", "crypto"]
        response = await http.post(TOPUP, json={"payment_method": "stars", "amount_kopeks": 10_000})
        assert (response.status_code, response.json()) == (
            400,
            {"detail": "Invalid or unavailable payment method"},
        )


async def test_the_first_topup_filter_follows_the_users_deposits(
    admin, admin_user, make_user, cabinet, client
):
    user = await make_user()
    await put(admin, "stars", first_topup_filter="yes")
    await put(admin, "crypto", first_topup_filter="no")
    async with cabinet(user.id) as http:
        assert await visible(http) == ["fakepay", "stars"]
        deposit = await client.post(f"/users/{user.messenger_id}/deposit", json={"amount_kopeks": 1_000})
        assert deposit.status_code == 200, deposit.text
        assert await visible(http) == ["fakepay", "crypto"]


async def test_the_promo_group_filter_and_a_deleted_group(admin, admin_user, make_user, cabinet, client, db):
    gold, silver = await make_promo_group(client, "Gold"), await make_promo_group(client, "Silver")
    user = await make_user(promo_group_id=gold)
    groups = (await admin.get(f"{ADMIN}/promo-groups")).json()
    assert [g for g in groups if g["id"] in (gold, silver)] == [
        {"id": gold, "name": "Gold"},
        {"id": silver, "name": "Silver"},
    ]
    answer = await put(
        admin, "stars", promo_group_filter_mode="selected", allowed_promo_group_ids=[silver, silver]
    )
    assert answer["allowed_promo_group_ids"] == [silver]
    await put(admin, "crypto", promo_group_filter_mode="selected", allowed_promo_group_ids=[gold, silver])
    async with cabinet(user.id) as http:
        assert await visible(http) == ["fakepay", "crypto"]
        await put(admin, "stars", allowed_promo_group_ids=[gold])
        assert await visible(http) == ["fakepay", "stars", "crypto"]
        deleted = await client.delete(f"/promo-groups/{gold}")
        assert deleted.status_code in (200, 204), deleted.text
        assert await visible(http) == [
            "fakepay",
            "stars",
            "crypto",
        ]  # moved to the default group, as the user
    default = (await client.get(f"/users/{user.messenger_id}")).json()["promo_group"]["id"]
    stars = (await admin.get(f"{ADMIN}/stars")).json()
    assert stars["allowed_promo_group_ids"] == [default]
    crypto = (await admin.get(f"{ADMIN}/crypto")).json()
    assert crypto["allowed_promo_group_ids"] == sorted([default, silver])


async def test_the_users_list_reads_each_table_once(app, admin, admin_user, make_user, cabinet, db):
    await put(admin, "stars", user_type_filter="messenger", promo_group_filter_mode="selected")
    await put(admin, "crypto", first_topup_filter="yes", promo_group_filter_mode="selected")
    user = await make_user()
    async with cabinet(user.id) as http:
        with recorded_statements(db) as statements:
            assert await visible(http) == ["fakepay"]
    for table in ("payment_method_configs", "payment_method_promo_groups", "transactions"):
        assert sum(f"FROM {table}" in s for s in statements) == 1, (table, statements)


async def make_promo_group(client: Any, name: str) -> int:
    """A promo group, made through the Web API."""
    response = await client.post("/promo-groups", json={"name": name})
    assert response.status_code == 201, response.text
    group_id: int = response.json()["id"]
    return group_id

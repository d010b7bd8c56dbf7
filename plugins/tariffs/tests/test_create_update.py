"""Creating and changing tariffs: defaults, period prices, the bounds, servers and promo groups,
the rules between fields, what null means, and the events."""

from __future__ import annotations

import pytest
from subsvc_tariffs.models import Tariff

BASE = "/cabinet/admin/tariffs"
EXTERNAL = "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d"


async def test_create_with_defaults_returns_the_detail(admin, make_server, make_group):
    server = await make_server(display_name="Amsterdam", country_code="NL", sort_order=2)
    other = await make_server(display_name="Berlin", country_code="DE", sort_order=1)
    group = await make_group(name="VIP")
    response = await admin.post(BASE, json={"name": "  Basic  "})
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Basic"
    defaults = {
        "description": None,
        "is_active": True,
        "is_trial_available": False,
        "allow_traffic_topup": True,
        "traffic_topup_enabled": False,
        "traffic_topup_packages": {},
        "max_topup_traffic_gb": 0,
        "traffic_limit_gb": 0,
        "device_limit": 1,
        "device_price_kopeks": None,
        "max_device_limit": None,
        "tier_level": 1,
        "display_order": 0,
        "period_prices": [],
        "allowed_squads": [],
        "server_traffic_limits": {},
        "subscriptions_count": 0,
        "custom_days_enabled": False,
        "price_per_day_kopeks": 0,
        "min_days": 1,
        "max_days": 365,
        "custom_traffic_enabled": False,
        "traffic_price_per_gb_kopeks": 0,
        "min_traffic_gb": 1,
        "max_traffic_gb": 1000,
        "is_daily": False,
        "daily_price_kopeks": 0,
        "traffic_reset_mode": None,
        "external_squad_uuid": None,
        "show_in_gift": True,
    }
    assert {name: body[name] for name in defaults} == defaults
    assert body["created_at"] == body["updated_at"]
    # every server (in the servers' sort order) and every promo group, none selected
    assert body["servers"] == [
        {
            "id": other.id,
            "squad_uuid": other.squad_uuid,
            "display_name": "Berlin",
            "country_code": "DE",
            "is_selected": False,
            "traffic_limit_gb": None,
        },
        {
            "id": server.id,
            "squad_uuid": server.squad_uuid,
            "display_name": "Amsterdam",
            "country_code": "NL",
            "is_selected": False,
            "traffic_limit_gb": None,
        },
    ]
    assert body["promo_groups"] == [{"id": group.id, "name": "VIP", "is_selected": False}]
    assert (await admin.get(f"{BASE}/{body['id']}")).json() == body


async def test_create_with_everything(admin, make_server, make_group):
    nl, de, _ = await make_server(), await make_server(), await make_server()
    vip, gold = await make_group(name="VIP"), await make_group(name="Gold")
    payload = {
        "name": "Max",
        "description": "All in",
        "is_active": False,
        "allow_traffic_topup": False,
        "traffic_topup_enabled": True,
        "traffic_topup_packages": {"50": 20000, "10": 5000},
        "max_topup_traffic_gb": 500,
        "traffic_limit_gb": 300,
        "device_limit": 3,
        "device_price_kopeks": 9900,
        "max_device_limit": 10,
        "tier_level": 7,
        "period_prices": [{"days": 90, "price_kopeks": 120000}, {"days": 30, "price_kopeks": 50000}],
        "allowed_squads": [nl.squad_uuid, de.squad_uuid, nl.squad_uuid],
        "server_traffic_limits": {de.squad_uuid: {"traffic_limit_gb": 50}},
        "promo_group_ids": [vip.id, gold.id, vip.id],
        "custom_days_enabled": True,
        "price_per_day_kopeks": 2000,
        "min_days": 7,
        "max_days": 60,
        "custom_traffic_enabled": True,
        "traffic_price_per_gb_kopeks": 300,
        "min_traffic_gb": 5,
        "max_traffic_gb": 200,
        "is_daily": False,
        "daily_price_kopeks": 0,
        "traffic_reset_mode": "month_rolling",
        "external_squad_uuid": EXTERNAL,
        "show_in_gift": False,
    }
    body = (await admin.post(BASE, json=payload)).json()
    assert body["traffic_topup_packages"] == {"10": 5000, "50": 20000}
    assert body["period_prices"] == [
        {"days": 30, "price_kopeks": 50000, "price_rubles": 500.0},
        {"days": 90, "price_kopeks": 120000, "price_rubles": 1200.0},
    ]
    assert body["allowed_squads"] == [nl.squad_uuid, de.squad_uuid]  # repeats dropped, order kept
    assert body["server_traffic_limits"] == {de.squad_uuid: {"traffic_limit_gb": 50}}
    assert [(s["id"], s["is_selected"], s["traffic_limit_gb"]) for s in body["servers"]] == [
        (nl.id, True, None),
        (de.id, True, 50),
        (nl.id + 2, False, None),
    ]
    assert {(g["name"], g["is_selected"]) for g in body["promo_groups"]} == {("VIP", True), ("Gold", True)}
    assert body["traffic_reset_mode"] == "MONTH_ROLLING"
    for name in (
        "description",
        "is_active",
        "max_topup_traffic_gb",
        "device_price_kopeks",
        "tier_level",
        "min_days",
        "max_days",
        "min_traffic_gb",
        "max_traffic_gb",
        "external_squad_uuid",
        "show_in_gift",
    ):
        assert body[name] == payload[name], name


async def test_new_tariffs_go_last(make_tariff, admin):
    first = await make_tariff()
    await admin.put(f"{BASE}/{first['id']}", json={"display_order": 7})
    second = await make_tariff()
    assert second["display_order"] == 8


@pytest.mark.parametrize(
    ("period_prices", "message"),
    [
        ([{"days": 30, "price_kopeks": 100}, {"days": 30, "price_kopeks": 200}], "duplicate period: 30 days"),
        ([{"days": 0, "price_kopeks": 100}], "greater than or equal to 1"),
        ([{"days": -30, "price_kopeks": 100}], "greater than or equal to 1"),
        ([{"days": 36501, "price_kopeks": 100}], "less than or equal to 36500"),
        ([{"days": 30, "price_kopeks": -1}], "greater than or equal to 0"),
        ([{"days": 30}], "Field required"),
    ],
)
async def test_period_prices_are_validated(admin, rows, period_prices, message):
    response = await admin.post(BASE, json={"name": "Bad", "period_prices": period_prices})
    assert response.status_code == 422
    errors = response.json()["detail"]
    assert any(message in error["msg"] for error in errors), errors
    assert all(error["loc"][:2] == ["body", "period_prices"] for error in errors)
    assert await rows(Tariff) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", ""),
        ("name", "   "),
        ("name", "x" * 256),
        ("traffic_limit_gb", -1),
        ("device_limit", 0),
        ("tier_level", 0),
        ("tier_level", 11),
        ("max_device_limit", 0),
        ("device_price_kopeks", -5),
        ("price_per_day_kopeks", -1),
        ("daily_price_kopeks", 2**31),
        ("min_days", 0),
        ("max_traffic_gb", 0),
        ("traffic_reset_mode", "YEARLY"),
        ("external_squad_uuid", "not-a-uuid"),
        ("traffic_topup_packages", {"ten": 500}),
        ("traffic_topup_packages", {"0": 500}),
        ("traffic_topup_packages", {"10": -1}),
        ("promo_group_ids", [0]),
        ("allowed_squads", [""]),
        ("server_traffic_limits", {"x": {"traffic_limit_gb": -1}}),
    ],
)
async def test_bounds_are_422(admin, rows, field, value):
    response = await admin.post(
        BASE, json={"name": "Bad", field: value} if field != "name" else {field: value}
    )
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][:2] == ["body", field]
    assert await rows(Tariff) == []


async def test_name_is_required(admin):
    response = await admin.post(BASE, json={})
    assert response.status_code == 422
    assert [e["loc"] for e in response.json()["detail"]] == [["body", "name"]]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"min_days": 30, "max_days": 7}, "min_days must not exceed max_days"),
        ({"min_traffic_gb": 100, "max_traffic_gb": 10}, "min_traffic_gb must not exceed max_traffic_gb"),
        ({"device_limit": 5, "max_device_limit": 3}, "max_device_limit must not be below device_limit"),
    ],
)
async def test_contradicting_limits_are_400(admin, rows, payload, message):
    response = await admin.post(BASE, json={"name": "Bad", **payload})
    assert response.status_code == 400
    assert response.json() == {"detail": message}
    assert await rows(Tariff) == []


async def test_unknown_servers_and_promo_groups_are_400(admin, rows, restrictions, make_server):
    known = await make_server()
    response = await admin.post(BASE, json={"name": "Bad", "allowed_squads": [known.squad_uuid, "ghost"]})
    assert (response.status_code, response.json()) == (400, {"detail": "Unknown servers: ghost"})
    response = await admin.post(BASE, json={"name": "Bad", "promo_group_ids": [404, 405]})
    assert (response.status_code, response.json()) == (400, {"detail": "Unknown promo groups: 404, 405"})
    assert await rows(Tariff) == []
    assert await restrictions() == []


async def test_traffic_limits_only_for_included_servers(admin, make_server, rows):
    included, other = await make_server(), await make_server()
    response = await admin.post(
        BASE,
        json={
            "name": "Bad",
            "allowed_squads": [included.squad_uuid],
            "server_traffic_limits": {other.squad_uuid: {"traffic_limit_gb": 5}},
        },
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": f"server_traffic_limits names servers the tariff does not include: {other.squad_uuid}"
    }
    assert await rows(Tariff) == []


# --- update --------------------------------------------------------------------------------------


async def test_update_changes_only_what_is_given(admin, make_tariff, make_server):
    server = await make_server()
    tariff = await make_tariff(
        name="Pro",
        description="Fast",
        device_price_kopeks=5000,
        traffic_reset_mode="WEEK",
        external_squad_uuid=EXTERNAL,
        allowed_squads=[server.squad_uuid],
        period_prices=[{"days": 30, "price_kopeks": 50000}],
    )
    response = await admin.put(
        f"{BASE}/{tariff['id']}", json={"traffic_limit_gb": 250, "name": None, "is_active": None}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["traffic_limit_gb"] == 250
    unchanged = (
        "name",
        "description",
        "is_active",
        "device_price_kopeks",
        "traffic_reset_mode",
        "external_squad_uuid",
        "allowed_squads",
        "period_prices",
        "created_at",
    )
    assert {k: body[k] for k in unchanged} == {k: tariff[k] for k in unchanged}
    assert body["updated_at"] > tariff["updated_at"]


async def test_an_explicit_null_clears_the_nullable_fields(admin, make_tariff):
    tariff = await make_tariff(
        description="Fast",
        device_price_kopeks=5000,
        max_device_limit=5,
        traffic_reset_mode="DAY",
        external_squad_uuid=EXTERNAL,
    )
    nullable = (
        "description",
        "device_price_kopeks",
        "max_device_limit",
        "traffic_reset_mode",
        "external_squad_uuid",
    )
    body = (await admin.put(f"{BASE}/{tariff['id']}", json=dict.fromkeys(nullable))).json()
    assert {name: body[name] for name in nullable} == dict.fromkeys(nullable)


async def test_period_prices_are_replaced_as_a_whole(admin, make_tariff):
    tariff = await make_tariff(
        period_prices=[{"days": 30, "price_kopeks": 100}, {"days": 90, "price_kopeks": 250}]
    )
    body = (
        await admin.put(f"{BASE}/{tariff['id']}", json={"period_prices": [{"days": 7, "price_kopeks": 0}]})
    ).json()
    assert body["period_prices"] == [{"days": 7, "price_kopeks": 0, "price_rubles": 0.0}]
    duplicate = [{"days": 7, "price_kopeks": 1}, {"days": 7, "price_kopeks": 2}]
    response = await admin.put(f"{BASE}/{tariff['id']}", json={"period_prices": duplicate})
    assert response.status_code == 422
    assert (await admin.get(f"{BASE}/{tariff['id']}")).json()["period_prices"] == body["period_prices"]


async def test_rules_hold_for_the_tariff_after_the_change(admin, make_tariff):
    tariff = await make_tariff(min_days=10, max_days=20)
    response = await admin.put(f"{BASE}/{tariff['id']}", json={"max_days": 5})
    assert (response.status_code, response.json()) == (400, {"detail": "min_days must not exceed max_days"})
    assert (await admin.get(f"{BASE}/{tariff['id']}")).json()["max_days"] == 20
    assert (await admin.put(f"{BASE}/{tariff['id']}", json={"min_days": 1, "max_days": 5})).status_code == 200


async def test_dropping_a_server_drops_its_traffic_limit(admin, make_tariff, make_server):
    kept, dropped = await make_server(), await make_server()
    tariff = await make_tariff(
        allowed_squads=[kept.squad_uuid, dropped.squad_uuid],
        server_traffic_limits={
            kept.squad_uuid: {"traffic_limit_gb": 1},
            dropped.squad_uuid: {"traffic_limit_gb": 2},
        },
    )
    body = (await admin.put(f"{BASE}/{tariff['id']}", json={"allowed_squads": [kept.squad_uuid]})).json()
    assert body["allowed_squads"] == [kept.squad_uuid]
    assert body["server_traffic_limits"] == {kept.squad_uuid: {"traffic_limit_gb": 1}}
    assert body["servers"][1]["is_selected"] is False


async def test_a_server_deleted_since_may_stay_but_not_be_added(admin, make_tariff, make_server, db):
    server = await make_server()
    tariff = await make_tariff(allowed_squads=[server.squad_uuid])
    async with db.session() as session:
        await session.delete(await session.get(type(server), server.id))
        await session.commit()
    kept = await admin.put(
        f"{BASE}/{tariff['id']}", json={"allowed_squads": [server.squad_uuid], "tier_level": 2}
    )
    assert kept.status_code == 200
    assert kept.json()["allowed_squads"] == [server.squad_uuid]
    added = await admin.put(f"{BASE}/{tariff['id']}", json={"allowed_squads": [server.squad_uuid, "ghost"]})
    assert (added.status_code, added.json()) == (400, {"detail": "Unknown servers: ghost"})


async def test_promo_groups_are_set_replaced_and_cleared(admin, make_tariff, make_group, restrictions):
    vip, gold, silver = (
        await make_group(name="VIP"),
        await make_group(name="Gold"),
        await make_group(name="Silver"),
    )
    tariff = await make_tariff(promo_group_ids=[vip.id, gold.id])
    assert await restrictions() == [(tariff["id"], vip.id), (tariff["id"], gold.id)]
    body = (await admin.put(f"{BASE}/{tariff['id']}", json={"promo_group_ids": [gold.id, silver.id]})).json()
    assert [g["name"] for g in body["promo_groups"] if g["is_selected"]] == ["Gold", "Silver"]
    untouched = (await admin.put(f"{BASE}/{tariff['id']}", json={"promo_group_ids": None})).json()
    assert untouched["promo_groups"] == body["promo_groups"]
    cleared = (await admin.put(f"{BASE}/{tariff['id']}", json={"promo_group_ids": []})).json()
    assert not any(g["is_selected"] for g in cleared["promo_groups"])
    assert await restrictions() == []
    response = await admin.put(f"{BASE}/{tariff['id']}", json={"promo_group_ids": [vip.id, 999]})
    assert (response.status_code, response.json()) == (400, {"detail": "Unknown promo groups: 999"})
    assert await restrictions() == []


async def test_events_name_what_changed(admin, make_tariff, make_group, outbox):
    group = await make_group()
    tariff = await make_tariff(name="Pro")
    await admin.put(
        f"{BASE}/{tariff['id']}", json={"name": "Pro", "traffic_limit_gb": 5, "promo_group_ids": [group.id]}
    )
    await admin.put(f"{BASE}/{tariff['id']}", json={"name": "Pro"})  # nothing changes: no event
    events = await outbox()
    assert events == [
        ("tariff.created", {"tariff_id": tariff["id"], "name": "Pro", "is_active": True, "changes": []}),
        (
            "tariff.updated",
            {
                "tariff_id": tariff["id"],
                "name": "Pro",
                "is_active": True,
                "changes": ["traffic_limit_gb", "promo_group_ids"],
            },
        ),
    ]


async def test_an_update_with_nothing_changed_keeps_updated_at(admin, make_tariff):
    tariff = await make_tariff(name="Same", tier_level=3)
    body = (await admin.put(f"{BASE}/{tariff['id']}", json={"name": "Same", "tier_level": 3})).json()
    assert body["updated_at"] == tariff["updated_at"]


async def test_update_bounds_are_422(admin, make_tariff):
    tariff = await make_tariff()
    response = await admin.put(f"{BASE}/{tariff['id']}", json={"display_order": -1, "tier_level": 0})
    assert response.status_code == 422
    assert {tuple(e["loc"]) for e in response.json()["detail"]} == {
        ("body", "display_order"),
        ("body", "tier_level"),
    }

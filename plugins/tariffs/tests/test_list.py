"""`GET /cabinet/admin/tariffs` as the spec's List Tariffs: `{tariffs, total}`, inactive ones
included by default, display order, servers and subscriptions counted per tariff."""

from __future__ import annotations

from datetime import datetime

from subsvc.testing import recorded_statements

BASE = "/cabinet/admin/tariffs"
LIST_ITEM_FIELDS = {
    "id",
    "name",
    "description",
    "is_active",
    "is_trial_available",
    "is_daily",
    "daily_price_kopeks",
    "allow_traffic_topup",
    "show_in_gift",
    "traffic_limit_gb",
    "device_limit",
    "tier_level",
    "display_order",
    "servers_count",
    "subscriptions_count",
    "created_at",
    "lava_product_id",
}


async def test_empty_catalogue(admin):
    response = await admin.get(BASE)
    assert response.status_code == 200
    assert response.json() == {"tariffs": [], "total": 0}


async def test_every_field_of_a_list_item(admin, make_tariff, make_server):
    servers = [await make_server(), await make_server()]
    created = await make_tariff(
        name="Pro",
        description="Fast",
        traffic_limit_gb=100,
        device_limit=3,
        tier_level=4,
        is_daily=True,
        daily_price_kopeks=1500,
        allow_traffic_topup=False,
        show_in_gift=False,
        lava_product_id="lava-pro",
        allowed_squads=[s.squad_uuid for s in servers],
    )
    (item,) = (await admin.get(BASE)).json()["tariffs"]
    assert set(item) == LIST_ITEM_FIELDS
    assert item == {
        "id": created["id"],
        "name": "Pro",
        "description": "Fast",
        "is_active": True,
        "is_trial_available": False,
        "is_daily": True,
        "daily_price_kopeks": 1500,
        "allow_traffic_topup": False,
        "show_in_gift": False,
        "traffic_limit_gb": 100,
        "device_limit": 3,
        "tier_level": 4,
        "display_order": 0,
        "servers_count": 2,
        "subscriptions_count": 0,
        "lava_product_id": "lava-pro",
        "created_at": created["created_at"],
    }
    assert datetime.fromisoformat(item["created_at"]).tzinfo is not None


async def test_inactive_tariffs_are_listed_unless_asked_not_to(admin, make_tariff):
    active = await make_tariff(name="On")
    inactive = await make_tariff(name="Off", is_active=False)
    everything = (await admin.get(BASE)).json()
    assert [t["id"] for t in everything["tariffs"]] == [active["id"], inactive["id"]]
    assert everything["total"] == 2
    assert (await admin.get(BASE, params={"include_inactive": "true"})).json() == everything
    only_active = (await admin.get(BASE, params={"include_inactive": "false"})).json()
    assert only_active == {"tariffs": [everything["tariffs"][0]], "total": 1}


async def test_include_inactive_must_be_a_boolean(admin):
    response = await admin.get(BASE, params={"include_inactive": "sometimes"})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert (error["loc"], error["type"]) == (["query", "include_inactive"], "bool_parsing")


async def test_order_is_display_order_then_id(admin, make_tariff):
    first = await make_tariff(name="A")
    second = await make_tariff(name="B")
    third = await make_tariff(name="C")
    assert [first["display_order"], second["display_order"], third["display_order"]] == [0, 1, 2]
    await admin.put(f"{BASE}/{third['id']}", json={"display_order": 0})
    listed = [t["name"] for t in (await admin.get(BASE)).json()["tariffs"]]
    assert listed == ["A", "C", "B"]  # A and C share 0: the older id first


async def test_subscriptions_are_counted_per_tariff_in_any_status(admin, make_tariff, make_subscription):
    pro = await make_tariff(name="Pro")
    basic = await make_tariff(name="Basic")
    await make_tariff(name="Empty")
    for status in ("active", "expired", "disabled"):
        await make_subscription(tariff_id=pro["id"], status=status)
    await make_subscription(tariff_id=basic["id"], is_trial=True)
    await make_subscription()  # no tariff
    counts = {t["name"]: t["subscriptions_count"] for t in (await admin.get(BASE)).json()["tariffs"]}
    assert counts == {"Pro": 3, "Basic": 1, "Empty": 0}


async def test_the_list_costs_two_queries_however_many_tariffs(admin, make_tariff, make_subscription, db):
    for number in range(6):
        tariff = await make_tariff(name=f"T{number}")
        await make_subscription(tariff_id=tariff["id"])
    with recorded_statements(db) as statements:
        response = await admin.get(BASE)
    assert response.status_code == 200
    assert len(response.json()["tariffs"]) == 6
    assert len(statements) == 2, statements  # the tariffs, one grouped count
    assert "GROUP BY" in statements[1]


async def test_available_servers_are_every_server_in_sort_order(admin, make_server):
    assert (await admin.get(f"{BASE}/available-servers")).json() == []
    late = await make_server(display_name="Late", country_code="US", sort_order=5)
    early = await make_server(display_name="Early", sort_order=1, is_available=False)
    response = await admin.get(f"{BASE}/available-servers")
    assert response.status_code == 200
    assert response.json() == [
        {
            "id": early.id,
            "squad_uuid": early.squad_uuid,
            "display_name": "Early",
            "country_code": None,
            "is_selected": False,
            "traffic_limit_gb": None,
        },
        {
            "id": late.id,
            "squad_uuid": late.squad_uuid,
            "display_name": "Late",
            "country_code": "US",
            "is_selected": False,
            "traffic_limit_gb": None,
        },
    ]


async def test_a_server_a_tariff_offers_is_kept_by_the_servers_plugin(
    admin, client, make_tariff, make_server
):
    offered, free = await make_server(), await make_server()
    await make_tariff(name="Pro", allowed_squads=[offered.squad_uuid])
    await make_tariff(name="Off", is_active=False, allowed_squads=[offered.squad_uuid])
    detail = await admin.get(f"/cabinet/admin/servers/{offered.id}")
    assert detail.json()["tariffs_using"] == ["Off", "Pro"]  # the servers plugin sorts them
    refused = await client.delete(f"/servers/{offered.id}")
    assert refused.status_code == 409
    assert refused.json() == {"detail": "Server is used by tariffs: Off, Pro"}
    assert (await client.delete(f"/servers/{free.id}")).status_code in (200, 204)

"""Cabinet Admin Servers: list, detail, update, toggles and statistics (administrator's JWT),
and 401/403 for everyone else."""

from __future__ import annotations

import httpx2
import pytest
from subsvc_servers.models import Server

from subsvc.testing import asgi_transport

BASE = "/cabinet/admin/servers"
ROUTES = [
    ("GET", "", None),
    ("POST", "/sync", None),
    ("GET", "/1", None),
    ("PUT", "/1", {"display_name": "X"}),
    ("POST", "/1/toggle", None),
    ("POST", "/1/trial", None),
    ("GET", "/1/stats", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_without_a_token_it_is_401_and_for_a_user_403(
    app, anon_client, user_token, make_server, method, path, body
):
    await make_server("squad-1")
    response = await anon_client.request(method, BASE + path, json=body)
    assert response.status_code == 401
    transport = asgi_transport(app)
    async with httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {user_token}"}
    ) as user:
        response = await user.request(method, BASE + path, json=body)
    assert response.status_code == 403
    assert response.json() == {"detail": "Insufficient permissions"}


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_the_web_api_key_does_not_open_the_cabinet_area(client, method, path, body):
    assert (await client.request(method, BASE + path, json=body)).status_code == 401


async def test_list_shows_availability_and_fullness(admin, make_server, db):
    full = await make_server("squad-full", displayName="Full", maxUsers=2, sortOrder=1)
    await make_server("squad-off", displayName="Off", isAvailable=False, sortOrder=2)
    await make_server("squad-open", displayName="Open", priceKopeks=150, sortOrder=3)
    async with db.session() as session:
        row = await session.get(Server, full["id"])
        row.current_users = 2
        await session.commit()

    listing = (await admin.get(BASE)).json()
    assert listing["total"] == 3
    states = [(s["display_name"], s["is_full"], s["availability_status"]) for s in listing["servers"]]
    assert states == [("Full", True, "full"), ("Off", False, "unavailable"), ("Open", False, "available")]
    item = listing["servers"][2]
    assert set(item) == {
        "id",
        "squad_uuid",
        "display_name",
        "original_name",
        "country_code",
        "is_available",
        "is_trial_eligible",
        "price_kopeks",
        "price_rubles",
        "max_users",
        "current_users",
        "sort_order",
        "is_full",
        "availability_status",
        "created_at",
    }
    assert (item["price_kopeks"], item["price_rubles"]) == (150, 1.5)
    only_available = (await admin.get(BASE, params={"include_unavailable": "false"})).json()
    assert [s["display_name"] for s in only_available["servers"]] == ["Full", "Open"]
    assert only_available["total"] == 2


async def test_detail_lists_every_promo_group_live_subscriptions_and_tariffs(
    admin, make_server, make_group, make_user, make_subscription, fakes
):
    vip, gold = await make_group("VIP"), await make_group("Gold")
    server = await make_server("squad-1", description="Fast", promoGroupIds=[gold["id"]])
    user = await make_user()
    await make_subscription(user, ["squad-1"])
    await make_subscription(user, ["squad-1"], is_trial=True)
    await make_subscription(user, ["squad-1"], days=-1)
    fakes.tariffs["squad-1"] = ["Standard", "Pro"]

    response = await admin.get(f"{BASE}/{server['id']}")
    assert response.status_code == 200, response.text
    detail = response.json()
    assert {g["name"]: g["is_selected"] for g in detail["promo_groups"]} == {"VIP": False, "Gold": True}
    assert {g["id"] for g in detail["promo_groups"]} == {vip["id"], gold["id"]}
    assert (detail["active_subscriptions"], detail["tariffs_using"]) == (1, ["Pro", "Standard"])
    assert (detail["description"], detail["availability_status"], detail["is_full"]) == (
        "Fast",
        "available",
        False,
    )
    assert detail["updated_at"] and detail["created_at"]


async def test_unknown_ids_are_404(admin):
    for method, path, body in ROUTES[2:]:
        response = await admin.request(method, BASE + path.replace("/1", "/999"), json=body)
        assert (response.status_code, response.json()) == (404, {"detail": "Server not found"}), path


async def test_update_changes_the_fields_sent(admin, make_server, make_group):
    vip = await make_group("VIP")
    server = await make_server("squad-1", displayName="Old", maxUsers=5, priceKopeks=100, description="Kept")
    body = {"display_name": "  New  ", "price_kopeks": 0, "sort_order": 4, "promo_group_ids": [vip["id"]]}
    response = await admin.put(f"{BASE}/{server['id']}", json=body)
    assert response.status_code == 200, response.text
    detail = response.json()
    assert (detail["display_name"], detail["price_kopeks"], detail["sort_order"]) == ("New", 0, 4)
    assert (detail["max_users"], detail["description"]) == (5, "Kept")
    assert [g["name"] for g in detail["promo_groups"] if g["is_selected"]] == ["VIP"]

    detail = (await admin.put(f"{BASE}/{server['id']}", json={"max_users": 0, "promo_group_ids": []})).json()
    assert detail["max_users"] is None
    assert not any(g["is_selected"] for g in detail["promo_groups"])


async def test_update_validation_and_refusals_change_nothing(admin, client, make_server):
    server = await make_server("squad-1", displayName="Old")
    response = await admin.put(
        f"{BASE}/{server['id']}", json={"display_name": "", "sort_order": -1, "country_code": "ABCDEF"}
    )
    assert response.status_code == 422
    assert {tuple(e["loc"]) for e in response.json()["detail"]} == {
        ("body", "display_name"),
        ("body", "sort_order"),
        ("body", "country_code"),
    }
    response = await admin.put(
        f"{BASE}/{server['id']}", json={"display_name": "New", "promo_group_ids": [77]}
    )
    assert (response.status_code, response.json()) == (400, {"detail": "Promo groups not found: 77"})
    assert (await client.get(f"/servers/{server['id']}")).json() == server


async def test_toggles_flip_and_say_so(admin, client, make_server):
    server = await make_server("squad-1")
    path = f"{BASE}/{server['id']}"
    assert (await admin.post(f"{path}/toggle")).json() == {
        "id": server["id"],
        "is_available": False,
        "message": "Server disabled",
    }
    assert (await admin.post(f"{path}/toggle")).json()["message"] == "Server enabled"
    assert (await admin.post(f"{path}/trial")).json() == {
        "id": server["id"],
        "is_trial_eligible": True,
        "message": "Trial enabled for server",
    }
    record = (await client.get(f"/servers/{server['id']}")).json()
    assert (record["isAvailable"], record["isTrialEligible"]) == (True, True)
    assert (await admin.post(f"{path}/trial")).json()["is_trial_eligible"] is False


async def test_stats_count_live_paid_and_trial_subscriptions(
    admin, make_server, make_user, make_subscription, db
):
    server = await make_server("squad-1", maxUsers=8)
    ann, bob = await make_user(), await make_user()
    await make_subscription(ann, ["squad-1"])
    await make_subscription(bob, ["squad-1"], status="trial")
    await make_subscription(bob, ["x", "squad-1"], is_trial=True)
    await make_subscription(bob, ["squad-1"], status="limited")
    async with db.session() as session:
        row = await session.get(Server, server["id"])
        row.current_users = 3
        await session.commit()
    assert (await admin.get(f"{BASE}/{server['id']}/stats")).json() == {
        "id": server["id"],
        "display_name": "SQUAD-1",
        "squad_uuid": "squad-1",
        "current_users": 3,
        "max_users": 8,
        "active_subscriptions": 1,
        "trial_subscriptions": 2,
        "usage_percent": 37.5,
    }
    unlimited = await make_server("squad-2")
    assert (await admin.get(f"{BASE}/{unlimited['id']}/stats")).json()["usage_percent"] is None

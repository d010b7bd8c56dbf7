"""Web API `servers`: CRUD, list, promo-group restrictions, statistics (X-API-Key)."""

from __future__ import annotations

import asyncio

from subsvc_servers.models import Server
from subsvc_subscriptions.models import Subscription


async def test_create_answers_the_record_with_defaults_and_promo_groups(client, make_group):
    group = await make_group("VIP")
    body = {
        "squadUuid": "  squad-de  ",
        "displayName": "Germany",
        "countryCode": "DE",
        "priceKopeks": 12_345,
        "promoGroupIds": [group["id"]],
    }
    response = await client.post("/servers", json=body)
    assert response.status_code == 201, response.text
    record = response.json()
    assert record["squadUuid"] == "squad-de"
    assert (record["displayName"], record["countryCode"], record["priceKopeks"], record["priceRubles"]) == (
        "Germany",
        "DE",
        12_345,
        123.45,
    )
    assert (record["isAvailable"], record["isTrialEligible"], record["sortOrder"]) == (True, False, 0)
    assert (record["maxUsers"], record["currentUsers"], record["originalName"], record["description"]) == (
        None,
        0,
        None,
        None,
    )
    assert record["createdAt"] and record["updatedAt"]
    assert [(g["id"], g["name"]) for g in record["promoGroups"]] == [(group["id"], "VIP")]
    assert set(record["promoGroups"][0]) == {
        "id",
        "name",
        "server_discount_percent",
        "traffic_discount_percent",
        "device_discount_percent",
        "apply_discounts_to_addons",
    }
    assert (await client.get(f"/servers/{record['id']}")).json() == record


async def test_a_duplicate_squad_is_409_and_adds_nothing(client, make_server, rows):
    await make_server("squad-1")
    response = await client.post("/servers", json={"squadUuid": "squad-1", "displayName": "Again"})
    assert response.status_code == 409
    assert response.json() == {"detail": "Server with squad UUID squad-1 already exists"}
    assert [s.display_name for s in await rows(Server)] == ["SQUAD-1"]


async def test_unknown_promo_groups_are_400_and_add_nothing(client, make_group, rows):
    group = await make_group("Known")
    body = {"squadUuid": "s", "displayName": "S", "promoGroupIds": [group["id"], 9001, 9000]}
    response = await client.post("/servers", json=body)
    assert (response.status_code, response.json()) == (400, {"detail": "Promo groups not found: 9000, 9001"})
    assert await rows(Server) == []


async def test_create_validates_every_field_at_once(client, rows):
    body = {"displayName": "", "priceKopeks": -1, "countryCode": "TOOLONG", "maxUsers": -5}
    response = await client.post("/servers", json=body)
    assert response.status_code == 422
    failing = {tuple(error["loc"]) for error in response.json()["detail"]}
    assert failing == {
        ("body", "squadUuid"),
        ("body", "displayName"),
        ("body", "priceKopeks"),
        ("body", "countryCode"),
        ("body", "maxUsers"),
    }
    assert await rows(Server) == []


async def test_max_users_zero_means_no_limit(make_server):
    assert (await make_server("s", maxUsers=0))["maxUsers"] is None


async def test_unknown_ids_are_404(client):
    for method, path, body in [
        ("GET", "/servers/999", None),
        ("PATCH", "/servers/999", {"displayName": "X"}),
        ("DELETE", "/servers/999", None),
        ("GET", "/servers/999/users", None),
    ]:
        response = await client.request(method, path, json=body)
        assert (response.status_code, response.json()) == (404, {"detail": "Server not found"}), path


async def test_list_pages_sorts_filters_and_searches(client, make_server):
    await make_server("squad-c", displayName="Charlie", sortOrder=2)
    await make_server("squad-a", displayName="Alpha", sortOrder=1, isAvailable=False)
    await make_server("squad-b", displayName="Bravo", sortOrder=1, countryCode="NL")
    await make_server("squad-100%", displayName="Percent", sortOrder=3)

    page = (await client.get("/servers", params={"page": 1, "limit": 2})).json()
    assert (page["total"], page["page"], page["limit"]) == (4, 1, 2)
    assert [s["displayName"] for s in page["items"]] == ["Alpha", "Bravo"]
    page = (await client.get("/servers", params={"page": 2, "limit": 2})).json()
    assert [s["displayName"] for s in page["items"]] == ["Charlie", "Percent"]
    page = (await client.get("/servers", params={"page": 9, "limit": 2})).json()
    assert (page["items"], page["total"]) == ([], 4)

    available = (await client.get("/servers", params={"available": "true"})).json()
    assert [s["displayName"] for s in available["items"]] == ["Bravo", "Charlie", "Percent"]
    assert available["total"] == 3
    assert [
        s["displayName"] for s in (await client.get("/servers", params={"search": "nl"})).json()["items"]
    ] == ["Bravo"]
    assert [
        s["squadUuid"] for s in (await client.get("/servers", params={"search": "%"})).json()["items"]
    ] == ["squad-100%"]
    assert (await client.get("/servers", params={"search": "SQUAD-"})).json()["total"] == 4


async def test_list_bounds_are_422(client):
    for params in ({"page": 0}, {"limit": 0}, {"limit": 201}):
        assert (await client.get("/servers", params=params)).status_code == 422, params


async def test_patch_changes_what_is_sent_and_null_clears_optional_fields(client, make_server, make_group):
    vip, gold = await make_group("VIP"), await make_group("Gold")
    server = await make_server(
        "squad-1", description="Fast", maxUsers=10, countryCode="DE", promoGroupIds=[vip["id"]]
    )
    response = await client.patch(
        f"/servers/{server['id']}",
        json={"displayName": None, "priceKopeks": 500, "description": None, "maxUsers": None, "sortOrder": 7},
    )
    assert response.status_code == 200, response.text
    changed = response.json()
    assert (changed["displayName"], changed["priceKopeks"], changed["sortOrder"]) == ("SQUAD-1", 500, 7)
    assert (changed["description"], changed["maxUsers"], changed["countryCode"]) == (None, None, "DE")
    assert [g["name"] for g in changed["promoGroups"]] == ["VIP"]
    assert changed["updatedAt"] >= server["updatedAt"]

    changed = (
        await client.patch(f"/servers/{server['id']}", json={"promoGroupIds": [gold["id"], vip["id"]]})
    ).json()
    assert sorted(g["name"] for g in changed["promoGroups"]) == ["Gold", "VIP"]
    changed = (await client.patch(f"/servers/{server['id']}", json={"promoGroupIds": []})).json()
    assert changed["promoGroups"] == []
    changed = (
        await client.patch(f"/servers/{server['id']}", json={"maxUsers": 0, "isAvailable": False})
    ).json()
    assert (changed["maxUsers"], changed["isAvailable"]) == (None, False)


async def test_a_refused_patch_changes_nothing(client, make_server, make_group, links):
    vip = await make_group("VIP")
    server = await make_server("squad-1", priceKopeks=100, promoGroupIds=[vip["id"]])
    response = await client.patch(
        f"/servers/{server['id']}", json={"priceKopeks": 999, "promoGroupIds": [4242]}
    )
    assert (response.status_code, response.json()) == (400, {"detail": "Promo groups not found: 4242"})
    assert (await client.get(f"/servers/{server['id']}")).json() == server
    assert await links() == [(server["id"], vip["id"])]
    response = await client.patch(f"/servers/{server['id']}", json={"priceKopeks": -1})
    assert response.status_code == 422


async def test_delete_removes_the_server_and_its_links(client, make_server, make_group, rows, links):
    vip = await make_group("VIP")
    server = await make_server("squad-1", promoGroupIds=[vip["id"]])
    response = await client.delete(f"/servers/{server['id']}")
    assert (response.status_code, response.json()) == (200, {"success": True, "message": "Server deleted"})
    assert await rows(Server) == [] and await links() == []
    assert (await client.get(f"/servers/{server['id']}")).status_code == 404


async def test_delete_is_409_while_live_subscriptions_or_tariffs_use_it(
    client, make_server, make_user, make_subscription, fakes, db, rows
):
    server = await make_server("squad-1")
    user = await make_user()
    await make_subscription(user, ["squad-1"], days=-1)  # ended: does not hold the server
    live = await make_subscription(user, ["other", "squad-1"], is_trial=True)
    response = await client.delete(f"/servers/{server['id']}")
    assert response.status_code == 409
    assert response.json() == {
        "detail": "Server has 1 active subscription(s) connected; make it unavailable instead"
    }

    async with db.session() as session:
        row = await session.get(Subscription, live.id)
        row.status = "disabled"
        await session.commit()
    fakes.tariffs["squad-1"] = ["Pro", "Basic"]
    response = await client.delete(f"/servers/{server['id']}")
    assert (response.status_code, response.json()) == (
        409,
        {"detail": "Server is used by tariffs: Basic, Pro"},
    )
    assert len(await rows(Server)) == 1

    fakes.tariffs.clear()
    assert (await client.delete(f"/servers/{server['id']}")).status_code == 200
    assert await rows(Server) == []


async def test_statistics_count_servers_connections_and_revenue(client, make_server, db):
    assert (await client.get("/servers/stats")).json() == {
        "totalServers": 0,
        "availableServers": 0,
        "unavailableServers": 0,
        "serversWithConnections": 0,
        "totalRevenueKopeks": 0,
        "totalRevenueRubles": 0.0,
    }
    first = await make_server("a", priceKopeks=10_050)
    second = await make_server("b", priceKopeks=2_000_000_000, isAvailable=False)
    await make_server("c", priceKopeks=300)
    async with db.session() as session:
        for server_id, users in ((first["id"], 3), (second["id"], 2)):
            row = await session.get(Server, server_id)
            row.current_users = users
        await session.commit()
    assert (await client.get("/servers/stats")).json() == {
        "totalServers": 3,
        "availableServers": 2,
        "unavailableServers": 1,
        "serversWithConnections": 2,
        "totalRevenueKopeks": 3 * 10_050 + 2 * 2_000_000_000,
        "totalRevenueRubles": round((3 * 10_050 + 2 * 2_000_000_000) / 100, 2),
    }


async def test_promo_group_deletion_keeps_the_server_restricted(client, make_server, make_group):
    vip = await make_group("VIP")  # the first group: the default one
    gold = await make_group("Gold")
    only_gold = await make_server("squad-1", promoGroupIds=[gold["id"]])
    both = await make_server("squad-2", promoGroupIds=[gold["id"], vip["id"]])
    response = await client.delete(f"/promo-groups/{gold['id']}")
    assert response.status_code == 204, response.text
    for server in (only_gold, both):
        groups = (await client.get(f"/servers/{server['id']}")).json()["promoGroups"]
        assert [g["name"] for g in groups] == ["VIP"]


async def test_concurrent_creations_of_one_squad_make_one_server(client, rows):
    body = {"squadUuid": "squad-race", "displayName": "Race"}
    answers = await asyncio.gather(*(client.post("/servers", json=body) for _ in range(6)))
    assert sorted(a.status_code for a in answers) == [201] + [409] * 5
    assert [s.squad_uuid for s in await rows(Server)] == ["squad-race"]


async def test_ids_out_of_range_are_404_or_422_never_500(client, make_server):
    server = await make_server("squad-1")
    for path in ("/servers/2147483647", "/servers/-1", "/servers/0/users"):
        response = await client.get(path)
        assert (response.status_code, response.json()) == (404, {"detail": "Server not found"}), path
    for path in ("/servers/4294967296", "/servers/4294967296/users"):  # beyond the INTEGER column
        response = await client.get(path)
        assert response.status_code == 422, path
        assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
            (["path", "server_id"], "less_than_equal")
        ]
    response = await client.patch(f"/servers/{server['id']}", json={"promoGroupIds": [2**40, 0]})
    assert response.status_code == 422
    assert [tuple(e["loc"]) for e in response.json()["detail"]] == [
        ("body", "promoGroupIds", 0),
        ("body", "promoGroupIds", 1),
    ]
    response = await client.post(
        "/servers", json={"squadUuid": "x", "displayName": "X", "priceKopeks": 2**31}
    )
    assert response.status_code == 422

"""Who is connected to a server, and its `currentUsers` counter: `GET /servers/{id}/users`,
`POST /servers/sync-counts`, and the recount after subscription changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text
from subsvc_servers.models import Server

from subsvc.db import utcnow


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, object]:
    return {"SERVERS_RECOUNT_DELAY_SECONDS": 0.0}


async def test_connected_users_are_paged_by_user_with_their_newest_subscription(
    client, make_server, make_user, make_subscription
):
    server = await make_server("squad-1")
    ann = await make_user(first_name="Ann", last_name="Lee", username="ann")
    bob = await make_user(first_name="Bob")
    cid = await make_user(first_name="Cid")
    outsider = await make_user(first_name="Out")
    await make_subscription(
        ann, ["squad-1"], status="expired", days=-3, created_at=utcnow() - timedelta(days=9)
    )
    newest = await make_subscription(ann, ["squad-1", "squad-2"], days=-1)  # active but ended: expired
    await make_subscription(bob, ["squad-2", "squad-1"], is_trial=True)
    await make_subscription(cid, ["squad-1"], status="disabled")
    await make_subscription(outsider, ["squad-2", "squad-10", "squad-1x"])

    page = (await client.get(f"/servers/{server['id']}/users", params={"limit": 2})).json()
    assert (page["total"], page["limit"], page["offset"]) == (3, 2, 0)
    first = page["items"][0]
    assert first == {
        "id": ann.id,
        "messengerId": ann.messenger_id,
        "username": "ann",
        "firstName": "Ann",
        "lastName": "Lee",
        "status": "active",
        "balanceKopeks": 0,
        "balanceRubles": 0.0,
        "subscriptionId": newest.id,
        "subscriptionStatus": "expired",
        "subscriptionEndDate": first["subscriptionEndDate"],
    }
    assert first["subscriptionEndDate"].startswith(newest.end_date.isoformat()[:19])
    assert [u["firstName"] for u in page["items"]] == ["Ann", "Bob"]
    assert page["items"][1]["subscriptionStatus"] == "active"

    rest = (await client.get(f"/servers/{server['id']}/users", params={"limit": 2, "offset": 2})).json()
    assert [(u["firstName"], u["subscriptionStatus"]) for u in rest["items"]] == [("Cid", "disabled")]
    beyond = (await client.get(f"/servers/{server['id']}/users", params={"offset": 10**6})).json()
    assert (beyond["items"], beyond["total"]) == ([], 3)


async def test_connected_users_bounds_are_422(client, make_server):
    server = await make_server("squad-1")
    for params in ({"limit": 0}, {"limit": 501}, {"offset": -1}, {"offset": 10**12}):
        response = await client.get(f"/servers/{server['id']}/users", params=params)
        assert response.status_code == 422, params
    assert (await client.get(f"/servers/{server['id']}/users", params={"limit": 500})).status_code == 200


async def test_a_squad_uuid_with_quotes_and_wildcards_matches_only_itself(
    client, make_server, make_user, make_subscription
):
    odd = "sq'ad\"%_\\1"
    server = await make_server(odd)
    await make_subscription(await make_user(), [odd])
    await make_subscription(await make_user(), ["sq'ad\"%_\\12", "squad"])
    page = (await client.get(f"/servers/{server['id']}/users")).json()
    assert page["total"] == 1


async def test_sync_counts_counts_users_with_live_subscriptions(
    client, make_server, make_user, make_subscription, rows
):
    first = await make_server("squad-1")
    second = await make_server("squad-2")
    await make_server("squad-3")
    ann, bob, cid = await make_user(), await make_user(), await make_user()
    await make_subscription(ann, ["squad-1"])
    await make_subscription(ann, ["squad-1", "squad-2"], is_trial=True)  # Ann counts once on squad-1
    await make_subscription(bob, ["squad-1"], status="trial")
    await make_subscription(cid, ["squad-2"], days=-1)  # ended
    await make_subscription(cid, ["squad-1", "squad-2"], status="disabled")

    assert (await client.post("/servers/sync-counts")).json() == {"updated": 2}
    counts = {s.squad_uuid: s.current_users for s in await rows(Server)}
    assert counts == {"squad-1": 2, "squad-2": 1, "squad-3": 0}
    assert (await client.post("/servers/sync-counts")).json() == {"updated": 0}
    record = (await client.get(f"/servers/{first['id']}")).json()
    assert record["currentUsers"] == 2
    assert (await client.get(f"/servers/{second['id']}")).json()["currentUsers"] == 1


async def test_counters_follow_subscription_changes(client, make_server, make_user, app, wait_for):
    server = await make_server("squad-1")
    user = await make_user()

    async def current_users() -> int:
        return int((await client.get(f"/servers/{server['id']}")).json()["currentUsers"])

    created = await client.post(
        "/subscriptions", json={"user_id": user.id, "duration_days": 30, "connected_squads": ["squad-1"]}
    )
    assert created.status_code in (200, 201), created.text
    subscription_id = created.json()["id"]

    async def one() -> bool:
        return await current_users() == 1

    await wait_for(one)
    removed = await client.delete(f"/subscriptions/{subscription_id}/squads/squad-1")
    assert removed.status_code == 200, removed.text

    async def none() -> bool:
        return await current_users() == 0

    await wait_for(none)
    assert app.state.servers_counts.recounts >= 2


async def test_the_postgresql_lookup_uses_the_gin_index(db, make_server):
    if db.dialect != "postgresql":
        pytest.skip("the GIN index exists on PostgreSQL only")
    async with db.engine.connect() as connection:
        await connection.execute(text("SET enable_seqscan = off"))
        plan = (
            await connection.execute(
                text(
                    "EXPLAIN SELECT count(*) FROM subscriptions "
                    "WHERE CAST(connected_squads AS JSONB) @> jsonb_build_array(CAST(:squad AS TEXT))"
                ),
                {"squad": "squad-1"},
            )
        ).all()
    assert "ix_subscriptions_connected_squads_gin" in "\n".join(row[0] for row in plan)

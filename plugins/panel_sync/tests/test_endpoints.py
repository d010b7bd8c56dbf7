"""The sync operations: started in the background, one at a time; from-panel, validate,
cleanup, statuses, recommendations, servers, the auto sync; no panel (503), access (401,
403), bad input (422)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from subsvc_panel.testing import FakePanelError
from subsvc_panel_sync import runs
from subsvc_panel_sync.mapping import GIB
from subsvc_panel_sync.models import PanelSyncRun
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import utcnow

ADMIN = "/cabinet/admin/panel/sync"


async def finished(client, run_id, wait_for):
    async def done():
        run = (await client.get("/panel/sync/status", params={"run_id": run_id})).json()["run"]
        return run if run["status"] in ("done", "failed") else None

    return await wait_for(done)


async def start(client, path, **kwargs):
    response = await client.post(path, **kwargs)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["success"] is True and body["data"]["status"] == "queued"
    return body["data"]["run_id"]


async def synced(client, subscription_id):
    found = (await client.get(f"/panel/sync/subscriptions/{subscription_id}")).json()
    return found if found["panel_sync_status"] == "synced" else None


@pytest.mark.no_panel
async def test_without_a_panel_syncs_answer_503_and_changes_wait(
    client, admin_token, make_subscription, panel
):
    for path in (
        "/panel/sync/to-panel",
        "/panel/sync/subscriptions/validate",
        "/panel/sync/subscriptions/cleanup",
    ):
        response = await client.post(path)
        assert response.status_code == 503
        assert response.json() == {"detail": "VPN panel is not configured"}
    assert (await client.get("/panel/sync/recommendations")).status_code == 503
    auth = {"Authorization": f"Bearer {admin_token}"}
    response = await client.post(f"{ADMIN}/auto/run", headers=auth)
    assert response.status_code == 200
    assert response.json()["started"] is False and response.json()["reason"] == "not_configured"
    sub = await make_subscription()
    state = (await client.get(f"/panel/sync/subscriptions/{sub['id']}")).json()
    assert state["panel_sync_status"] == "pending" and state["attempts"] == 0
    assert panel.requests == []


async def test_access_and_validation(anon_client, client, user_token, admin_token):
    assert (await anon_client.post("/panel/sync/to-panel")).status_code == 401
    user = {"Authorization": f"Bearer {user_token}"}
    for method, path in (("POST", "/to-panel"), ("GET", "/auto/status"), ("POST", "/auto/run")):
        response = await anon_client.request(method, ADMIN + path, headers=user)
        assert response.status_code == 403, path
    response = await client.post("/panel/sync/from-panel", json={"mode": "everything"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "mode"]
    response = await anon_client.post(
        f"{ADMIN}/auto/toggle", json={}, headers={"Authorization": f"Bearer {admin_token}"}
    )
    assert response.status_code == 422
    assert (await client.get("/panel/sync/status", params={"run_id": 12345})).status_code == 404


async def test_from_panel_updates_and_imports(client, panel, make_subscription, wait_for, db):
    sub = await make_subscription(period_days=5)
    first = await wait_for(lambda: synced(client, sub["id"]))
    later = (datetime.now(UTC) + timedelta(days=60)).replace(microsecond=0)
    panel.users[first["panel_uuid"]].update(expireAt=later.isoformat(), usedTrafficBytes=3 * GIB)
    panel.add_user("vip_anna", telegramId=777_000_001, trafficLimitBytes=20 * GIB, hwidDeviceLimit=4)
    panel.add_user("no_messenger", status="DISABLED")
    panel.requests.clear()

    run = await finished(
        client, await start(client, "/panel/sync/from-panel", json={"mode": "update_only"}), wait_for
    )
    assert (run["status"], run["total"], run["updated"], run["created"], run["unchanged"]) == (
        "done",
        3,
        1,
        0,
        2,
    )
    mine = (await client.get(f"/subscriptions/{sub['id']}")).json()
    assert datetime.fromisoformat(mine["end_date"]) == later
    assert mine["traffic_used_gb"] == 3.0

    run = await finished(
        client, await start(client, "/panel/sync/from-panel", json={"mode": "new_only"}), wait_for
    )
    assert (run["status"], run["created"], run["unchanged"]) == ("done", 2, 1)
    async with db.session() as session:
        anna = (await session.exec(sa.select(User).where(User.messenger_id == 777_000_001))).scalar_one()
        (imported,) = (
            await session.exec(sa.select(Subscription).where(Subscription.user_id == anna.id))
        ).scalars()
    assert (imported.traffic_limit_gb, imported.device_limit, imported.status) == (20, 4, "active")
    state = (await client.get(f"/panel/sync/subscriptions/{imported.id}")).json()
    assert state["panel_sync_status"] == "synced"
    assert panel.users[state["panel_uuid"]]["username"] == "vip_anna"
    # nothing was pushed back: the panel already shows these values
    assert panel.count("PATCH") == 0 and panel.count("POST") == 0
    again = await finished(client, await start(client, "/panel/sync/from-panel", json={}), wait_for)
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 3)


async def test_validate_queues_what_differs_and_the_queue_fixes_it(
    client, panel, make_subscription, wait_for
):
    subs = [await make_subscription() for _ in range(3)]
    found = [await wait_for(lambda s=s: synced(client, s["id"])) for s in subs]
    panel.users[found[0]["panel_uuid"]]["hwidDeviceLimit"] = 9
    panel._forget(panel.users[found[1]["panel_uuid"]])
    run = await finished(client, await start(client, "/panel/sync/subscriptions/validate"), wait_for)
    assert run["result"] == {"checked": 3, "missing_in_panel": 1, "mismatched": 1, "in_sync": 1, "queued": 2}
    await wait_for(lambda: panel.users[found[0]["panel_uuid"]]["hwidDeviceLimit"] == 2)
    await wait_for(lambda: len(panel.users_of_messenger_id(subs[1]["messenger_id"])) == 1)
    for sub in subs:
        await wait_for(lambda sub=sub: synced(client, sub["id"]))


async def test_cleanup_disables_panel_users_whose_subscription_is_gone(
    client, panel, make_subscription, wait_for
):
    sub = await make_subscription()
    await wait_for(lambda: synced(client, sub["id"]))
    orphan = panel.add_user("user_123_zz99zz99")
    foreign = panel.add_user("someone_else")
    run = await finished(client, await start(client, "/panel/sync/subscriptions/cleanup"), wait_for)
    assert (run["status"], run["total"], run["disabled"], run["unchanged"]) == ("done", 3, 1, 2)
    assert run["result"] == {"orphans": 1, "requeued": 0, "forgotten": 0}
    assert panel.users[orphan["uuid"]]["status"] == "DISABLED"
    assert panel.users[foreign["uuid"]]["status"] == "ACTIVE"


async def test_statuses_copy_usage_and_limits_from_the_panel(client, panel, make_subscription, wait_for):
    sub = await make_subscription(traffic_limit_gb=10)
    state = await wait_for(lambda: synced(client, sub["id"]))
    panel.users[state["panel_uuid"]].update(status="LIMITED", usedTrafficBytes=10 * GIB)
    run = await finished(client, await start(client, "/panel/sync/subscriptions/statuses"), wait_for)
    assert (run["status"], run["updated"], run["unchanged"]) == ("done", 1, 0)
    mine = (await client.get(f"/subscriptions/{sub['id']}")).json()
    assert (mine["status"], mine["traffic_used_gb"]) == ("limited", 10.0)


async def test_recommendations_count_both_sides(client, admin_token, panel, make_subscription, wait_for):
    sub = await make_subscription()
    await wait_for(lambda: synced(client, sub["id"]))
    panel.add_users(2)
    body = (await client.get("/panel/sync/recommendations")).json()
    assert body["success"] is True
    data = body["data"]
    assert (data["panel_users"], data["subscriptions"], data["queue"]["synced"]) == (3, 1, 1)
    assert any("from-panel" in text for text in data["recommendations"])
    auth = {"Authorization": f"Bearer {admin_token}"}
    admin = (await client.get(f"{ADMIN}/recommendations", headers=auth)).json()
    assert admin["success"] is True and admin["data"]["panel_users"] == 3


async def test_servers_follow_the_panel_squads(client, admin_token, panel):
    panel.add_squad("Germany")
    panel.add_squad("Finland")
    response = await client.post(f"{ADMIN}/servers", headers={"Authorization": f"Bearer {admin_token}"})
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True, body
    assert (body["data"]["created"], body["data"]["total"]) == (2, 2)


async def test_auto_sync_toggle_status_and_run(client, admin_token, panel, wait_for, app):
    auth = {"Authorization": f"Bearer {admin_token}"}
    status = (await client.get(f"{ADMIN}/auto/status", headers=auth)).json()
    assert (status["enabled"], status["times"], status["next_run"], status["is_running"]) == (
        False, ["03:00"], None, False
    )  # fmt: skip
    toggled = await client.post(f"{ADMIN}/auto/toggle", json={"enabled": True}, headers=auth)
    assert toggled.status_code == 200 and toggled.json()["success"] is True
    status = (await client.get(f"{ADMIN}/auto/status", headers=auth)).json()
    next_run = datetime.fromisoformat(status["next_run"])
    assert status["enabled"] is True and (next_run.hour, next_run.minute) == (3, 0) and next_run > utcnow()
    panel.add_users(2)
    panel.add_squad("Germany")
    started = (await client.post(f"{ADMIN}/auto/run", headers=auth)).json()
    assert started["started"] is True
    run = await finished(client, started["run_id"], wait_for)
    assert (run["kind"], run["status"], run["created"]) == ("auto", "done", 2)
    status = (await client.get(f"{ADMIN}/auto/status", headers=auth)).json()
    assert status["last_run_success"] is True and status["last_run_reason"] == "manual"
    assert status["last_user_stats"]["created"] == 2
    assert status["last_server_stats"]["success"] is True
    # the scheduled run: due now, started by the periodic job, next time moved on
    async with app.state.db.session() as session:
        await session.exec(sa.update(runs.CONTROL).values(next_auto_at=utcnow() - timedelta(seconds=1)))
        await session.commit()
    await runs.auto(app)
    status = (await client.get(f"{ADMIN}/auto/status", headers=auth)).json()
    assert datetime.fromisoformat(status["next_run"]) > utcnow()
    latest = (await client.get("/panel/sync/status")).json()["run"]
    assert (latest["kind"], latest["reason"]) == ("auto", "scheduled")
    await finished(client, latest["id"], wait_for)
    off = await client.post(f"{ADMIN}/auto/toggle", json={"enabled": False}, headers=auth)
    assert off.json()["data"] == {"enabled": False, "next_run": None}


async def test_a_sync_left_by_a_stopped_process_is_taken_up_from_its_cursor(
    client, panel, make_subscription, wait_for, app, db
):
    subs = [await make_subscription() for _ in range(3)]
    for sub in subs:
        await wait_for(lambda sub=sub: synced(client, sub["id"]))
    panel.requests.clear()
    # a to-panel run that had done the first subscription when its process stopped
    old = utcnow() - timedelta(minutes=5)
    async with db.session() as session:
        run = PanelSyncRun(
            kind="to_panel", status="running", total=3, processed=1, unchanged=1,
            cursor={"after": subs[0]["id"]}, created_at=old, started_at=old, heartbeat_at=old,
        )  # fmt: skip
        session.add(run)
        await session.flush()
        await runs.ensure_control(session)
        await session.exec(sa.update(runs.CONTROL).values(current_run_id=run.id))
        await session.commit()
    assert (await client.post("/panel/sync/to-panel")).status_code == 409
    await runs.resume(app)  # or the app's own resume job, whichever claims the lease first
    done = await finished(client, run.id, wait_for)
    assert (done["status"], done["processed"], done["unchanged"], done["percent"]) == ("done", 3, 3, 100.0)
    assert panel.count("GET", "/users") >= 1 and panel.count("PATCH") == 0
    assert (await client.post("/panel/sync/to-panel")).status_code == 200  # free again


async def test_a_full_sync_with_the_panel_down_fails_with_the_reason(client, panel, wait_for):
    await panel.down()
    run = await finished(client, await start(client, "/panel/sync/to-panel"), wait_for)
    assert run["status"] == "failed"
    assert run["message"].startswith("VPN panel error: cannot connect")
    await panel.up()
    assert (await client.post("/panel/sync/to-panel")).status_code == 200  # the control is free


async def test_pushes_a_full_sync_could_not_make_are_queued(
    client, panel, make_subscription, wait_for, states
):
    sub = await make_subscription()
    await wait_for(lambda: synced(client, sub["id"]))
    panel._forget(next(iter(panel.users.values())))  # lost in the panel: to be made again
    original = panel._create_user

    def refuse(body):  # the panel refuses creations for a while
        raise FakePanelError(503, "busy")

    panel._create_user = refuse
    run = await finished(client, await start(client, "/panel/sync/to-panel"), wait_for)
    assert (run["status"], run["error_count"]) == ("done", 1)
    assert "HTTP 503" in run["errors"][0]
    (state,) = await states()
    assert state.status == "failed" and state.attempts >= 1
    panel._create_user = original
    await wait_for(lambda: synced(client, sub["id"]))
    assert len(panel.users) == 1

"""A full sync to the panel of 10,000 subscriptions (seeded with one bulk INSERT each for
users and subscriptions) runs in the background in pages, with its progress readable from
the status endpoint and pushed to the admin WebSocket; a second sync meanwhile is a 409."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from subsvc_panel_sync.mapping import GIB
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User
from websockets.asyncio.client import connect

from subsvc.db import utcnow
from subsvc.testing_server import LoopbackServer

COUNT = 10_000
FIRST_MESSENGER_ID = 600_000_000


async def seed(db: Any, count: int, now: datetime) -> None:
    """``count`` users and one subscription each, one INSERT per table."""
    users = [
        {"id": n, "messenger_id": FIRST_MESSENGER_ID + n, "created_at": now, "updated_at": now}
        for n in range(1, count + 1)
    ]
    subscriptions = [
        {
            "id": n,
            "user_id": n,
            "start_date": now,
            "end_date": now + timedelta(days=30 + n % 7),
            "traffic_limit_gb": n % 3 * 10,
            "device_limit": 1 + n % 2,
            "connected_squads": [],
            "short_id": f"s{n:07d}",
            "created_at": now,
            "updated_at": now,
        }
        for n in range(1, count + 1)
    ]
    async with db.session() as session:
        await session.exec(sa.insert(User.__table__), params=users)  # type: ignore[attr-defined]
        await session.exec(sa.insert(Subscription.__table__), params=subscriptions)  # type: ignore[attr-defined]
        if db.dialect == "postgresql":
            for table in ("users", "subscriptions"):
                await session.exec(
                    sa.text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {count})")
                )
        await session.commit()


async def test_to_panel_of_ten_thousand_with_progress(app, client, db, panel, api_key, wait_for):
    now = utcnow()
    await seed(db, COUNT, now)
    # the panel already has most of them: 1,000 missing, 500 different, the rest in sync
    for n in range(1, COUNT - 1_000 + 1):
        panel.add_user(
            f"user_{FIRST_MESSENGER_ID + n}_s{n:07d}",
            telegramId=FIRST_MESSENGER_ID + n,
            expireAt=(now + timedelta(days=30 + n % 7)).isoformat(),
            trafficLimitBytes=(n % 3 * 10 + (1 if n <= 500 else 0)) * GIB,
            hwidDeviceLimit=1 + n % 2,
        )
    panel.requests.clear()
    messages: list[dict[str, Any]] = []
    async with LoopbackServer(app) as server, connect(f"{server.ws_url}/ws?token={api_key}") as ws:
        assert json.loads(await ws.recv())["type"] == "connection"
        response = await client.post("/panel/sync/to-panel")
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["success"] is True
        run_id = body["data"]["run_id"]
        busy = await client.post("/panel/sync/subscriptions/validate")
        assert busy.status_code == 409
        assert busy.json() == {"detail": f"A panel sync is already running (run {run_id})"}

        readings: list[float] = []

        async def finished() -> bool:
            run = (await client.get("/panel/sync/status", params={"run_id": run_id})).json()["run"]
            readings.append(run["percent"])
            return run["status"] in ("done", "failed")

        await wait_for(finished, seconds=60)
        while not messages or messages[-1]["payload"]["status"] != "done":
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if message["type"] == "panel_sync.progress":
                messages.append(message)
    run = (await client.get("/panel/sync/status", params={"run_id": run_id})).json()["run"]
    assert run["status"] == "done", run
    assert (run["total"], run["processed"], run["percent"]) == (COUNT, COUNT, 100.0)
    assert (run["created"], run["updated"], run["unchanged"], run["error_count"]) == (1_000, 500, 8_500, 0)
    assert readings == sorted(readings) and readings[-1] == 100.0
    assert any(0 < p < 100 for p in readings)
    percents = [m["payload"]["percent"] for m in messages]
    assert percents == sorted(percents) and percents[-1] == 100.0
    assert len([p for p in percents if 0 < p < 100]) >= 5  # one per page of 500
    assert messages[-1]["payload"]["created"] == 1_000
    # the panel saw one listing pass, the creations and the updates, nothing else
    assert panel.count("POST", "/users") == 1_000
    assert panel.count("PATCH", "/users") == 500
    assert len(panel.users) == COUNT
    queue = (await client.get("/panel/sync/status")).json()["queue"]
    assert queue == {"pending": 0, "failed": 0, "synced": COUNT}

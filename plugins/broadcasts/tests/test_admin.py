"""`/cabinet/admin/broadcasts`: filter screens with counts, preview, create and send, details
readable while it runs, history, stop, e-mail audiences; progress reaches the admin sockets."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from subsvc_tariffs.models import Tariff
from websockets.asyncio.client import connect

from subsvc.db import utcnow

ADMIN = "/cabinet/admin/broadcasts"


async def test_filters_count_the_users_a_broadcast_would_reach(admin, users, db, rows):
    await users(3)
    await users(2, first_chat=600_000_000, messenger_blocked_at=utcnow())  # refused the bot lately
    await users(1, first_chat=610_000_000, email="a@example.com", email_verified=True, auth_type="email")
    async with db.session() as session:
        session.add(Tariff(name="Basic"))
        session.add(Tariff(name="Old", is_active=False))
        await session.commit()
    tariff = (await rows(Tariff, name="Basic"))[0]
    body = (await admin.get(f"{ADMIN}/filters")).json()
    by_key = {item["key"]: item for item in body["filters"]}
    assert by_key["all"] == {"key": "all", "label": "Все пользователи", "count": 5, "group": "basic"}
    assert by_key["active"]["count"] == 0 and by_key["no"]["count"] == 5
    assert {item["key"] for item in body["custom_filters"]} >= {"custom_today", "custom_direct"}
    assert body["tariff_filters"] == [
        {"key": f"tariff_{tariff.id}", "label": "Basic", "tariff_id": tariff.id, "count": 0}
    ]
    tariffs = (await admin.get(f"{ADMIN}/tariffs")).json()["tariffs"]
    assert tariffs == [
        {"id": tariff.id, "name": "Basic", "filter_key": f"tariff_{tariff.id}", "active_users_count": 0}
    ]
    preview = await admin.post(f"{ADMIN}/preview", json={"target": "all"})
    assert preview.json() == {"target": "all", "count": 5}
    bad = await admin.post(f"{ADMIN}/preview", json={"target": "everyone"})
    assert bad.status_code == 400 and bad.json() == {"detail": "Invalid target: everyone"}
    emails = (await admin.get(f"{ADMIN}/email-filters")).json()
    assert emails["total_with_email"] == 1
    assert {item["key"]: item["count"] for item in emails["filters"]}["email_only"] == 1
    assert (await admin.post(f"{ADMIN}/email-preview", json={"target": "all_email"})).json() == {
        "target": "all_email",
        "count": 1,
    }
    refused = await admin.post(f"{ADMIN}/email-preview", json={"target": "x"})
    assert refused.status_code == 400 and refused.json() == {"detail": "Invalid email target: x"}


async def test_buttons_list_the_keys_with_home_by_default(admin):
    buttons = (await admin.get(f"{ADMIN}/buttons")).json()["buttons"]
    assert [b["key"] for b in buttons] == [
        "balance", "referrals", "promocode", "connect", "subscription", "support", "home"
    ]  # fmt: skip
    assert [b["key"] for b in buttons if b["default"]] == ["home"]


async def test_create_send_read_and_list(admin, users, finished, fake_bot_api):
    await users(3)
    created = await admin.post(ADMIN, json={"target": "no", "message_text": "hi"})
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["admin_id"], body["admin_name"], body["channel"]) == (1, "boss", "telegram")
    assert body["total_count"] == 4  # the administrator has no subscription either
    await finished(body["id"])
    detail = (await admin.get(f"{ADMIN}/{body['id']}")).json()
    assert (detail["status"], detail["sent_count"], detail["progress_percent"]) == ("completed", 4, 100.0)
    sent = await admin.post(
        f"{ADMIN}/send", json={"channel": "telegram", "target": "all", "message_text": "two"}
    )
    assert sent.status_code == 201 and sent.json()["message_text"] == "two"
    await finished(sent.json()["id"])
    listed = (await admin.get(ADMIN, params={"limit": 1})).json()
    assert listed["total"] == 2 and listed["limit"] == 1 and listed["items"][0]["id"] == sent.json()["id"]
    assert (await admin.get(ADMIN, params={"limit": 101})).status_code == 422
    email = await admin.post(
        f"{ADMIN}/send", json={"channel": "email", "target": "all_email", "email_subject": "s"}
    )
    assert email.status_code == 400
    no_text = await admin.post(f"{ADMIN}/send", json={"channel": "telegram", "target": "all"})
    assert no_text.json() == {"detail": "Message text is required for Telegram broadcast"}
    assert (await admin.get(f"{ADMIN}/999")).json() == {"detail": "Broadcast not found"}
    assert (await admin.post(f"{ADMIN}/999/stop")).status_code == 404


async def test_only_administrators(member, anon_client):
    assert (await anon_client.get(ADMIN)).status_code == 401
    assert (await member.get(ADMIN)).status_code == 403
    assert (await member.post(ADMIN, json={"target": "all", "message_text": "x"})).status_code == 403


async def test_progress_is_pushed_to_admin_sockets(base, api_key, client, users, finished):
    await users(2)
    async with connect(f"{base}/ws?token={api_key}") as ws:
        assert json.loads(await ws.recv())["type"] == "connection"
        created = (await client.post("/broadcasts", json={"target": "all", "message_text": "x"})).json()
        await finished(created["id"])
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1]["payload"]["status"] != "completed":
            message = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if message["type"] == "broadcast.progress":
                seen.append(message)
        assert all(m["payload"]["broadcast_id"] == created["id"] for m in seen)
        assert seen[0]["payload"]["total_count"] == 2
        assert seen[-1]["payload"] | {} == {
            "broadcast_id": created["id"],
            "status": "completed",
            "total_count": 2,
            "sent_count": 2,
            "failed_count": 0,
            "blocked_count": 0,
            "unknown_count": 0,
            "progress_percent": 100.0,
        }

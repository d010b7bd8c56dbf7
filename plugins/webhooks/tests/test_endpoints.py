"""`/webhooks`: create, list, read, update, delete, deliveries, stats (reference §13 shapes)."""

from __future__ import annotations

import asyncio

from subsvc_webhooks.models import WebhookDelivery

from .conftest import URL, create, refused

RECORD_KEYS = {
    "id",
    "name",
    "url",
    "event_type",
    "is_active",
    "description",
    "created_at",
    "updated_at",
    "last_triggered_at",
    "failure_count",
    "success_count",
}


async def test_create_answers_the_record_without_the_secret(client):
    r = await client.post(
        "/webhooks", json={"name": "CRM", "url": URL, "event_type": "user.created", "secret": "k" * 128}
    )
    assert r.status_code == 201
    record = r.json()
    assert set(record) >= RECORD_KEYS
    assert "secret" not in record and "k" * 128 not in r.text
    assert record["has_secret"] is True
    assert (record["name"], record["url"], record["event_type"]) == ("CRM", URL, "user.created")
    assert (record["is_active"], record["success_count"], record["failure_count"]) == (True, 0, 0)
    assert (record["description"], record["last_triggered_at"]) == (None, None)  # keys always present
    assert (record["deactivation_reason"], record["deactivated_at"], record["failing_since"]) == (None,) * 3
    assert (await client.get(f"/webhooks/{record['id']}")).json() == record


async def test_create_validates_every_field_at_once(client):
    body = {"name": "", "url": "", "event_type": "x" * 51, "secret": "k" * 129}
    r = await client.post("/webhooks", json=body)
    assert r.status_code == 422
    assert sorted((e["loc"][1], e["type"]) for e in r.json()["detail"]) == [
        ("event_type", "string_too_long"),
        ("name", "string_too_short"),
        ("secret", "string_too_long"),
        ("url", "string_too_short"),
    ]
    r = await client.post("/webhooks", json={"url": URL})
    assert {tuple(e["loc"]) for e in r.json()["detail"]} == {("body", "name"), ("body", "event_type")}
    assert (
        await client.post("/webhooks", json={"name": "n" * 256, "url": URL, "event_type": "*"})
    ).status_code == 422


async def test_only_http_and_https_urls_are_accepted(client):
    for url in (
        "ftp://example.com/x",
        "example.com/hook",
        "javascript:alert(1)",
        "http:///nohost",
        "http://h:99999/",
    ):
        error = await refused(client, url)
        assert error["loc"] == ["body", "url"] and error["type"] == "value_error"
    for url in ("http://example.com/a", "HTTPS://example.com:8443/b?c=d"):
        await create(client, name="n", url=url, event_type="*")


async def test_event_type_is_a_declared_type_or_star(client):
    r = await client.post("/webhooks", json={"name": "n", "url": URL, "event_type": "user.creatd"})
    assert r.status_code == 422
    (error,) = r.json()["detail"]
    assert error["loc"] == ["body", "event_type"]
    assert "unknown event type 'user.creatd'" in error["msg"] and "GET /events/types" in error["msg"]
    for event_type in ("*", "payment.completed", "transaction.created"):
        await create(client, event_type=event_type)


async def test_list_newest_first_with_filters_and_pages(client):
    first = await create(client, name="a", event_type="user.created")
    second = await create(client, name="b", event_type="*")
    third = await create(client, name="c", event_type="user.created")
    await client.patch(f"/webhooks/{second['id']}", json={"is_active": False})

    page = (await client.get("/webhooks")).json()
    assert [w["id"] for w in page["items"]] == [third["id"], second["id"], first["id"]]
    assert (page["total"], page["limit"], page["offset"]) == (3, 50, 0)
    by_type = (await client.get("/webhooks", params={"event_type": "user.created"})).json()
    assert [w["id"] for w in by_type["items"]] == [third["id"], first["id"]]
    inactive = (await client.get("/webhooks", params={"is_active": "false"})).json()
    assert [w["id"] for w in inactive["items"]] == [second["id"]]
    window = (await client.get("/webhooks", params={"limit": 1, "offset": 1})).json()
    assert ([w["id"] for w in window["items"]], window["total"]) == ([second["id"]], 3)
    for params in ({"limit": 0}, {"limit": 201}, {"offset": -1}, {"is_active": "maybe"}):
        assert (await client.get("/webhooks", params=params)).status_code == 422, params


async def test_update_changes_only_what_is_given(client):
    record = await create(client, description="old", secret="one")
    await asyncio.sleep(0.01)
    r = await client.patch(
        f"/webhooks/{record['id']}",
        json={"name": "Renamed", "description": None, "url": None, "event_type": "*", "secret": None},
    )
    assert r.status_code == 200
    changed = r.json()
    assert changed["name"] == "Renamed"
    assert (changed["description"], changed["url"], changed["event_type"]) == ("old", URL, "user.created")
    assert changed["has_secret"] is True  # null leaves the secret
    assert changed["updated_at"] > record["updated_at"]
    assert changed["created_at"] == record["created_at"]
    r = await client.patch(f"/webhooks/{record['id']}", json={"secret": ""})
    assert r.json()["has_secret"] is False  # an empty secret removes it
    r = await client.patch(f"/webhooks/{record['id']}", json={"secret": "two", "is_active": False})
    assert (r.json()["has_secret"], r.json()["is_active"]) == (True, False)
    r = await client.patch(f"/webhooks/{record['id']}", json={})
    assert r.status_code == 200 and r.json()["name"] == "Renamed"


async def test_update_validates_like_create(client):
    record = await create(client)
    for body in (
        {"name": ""},
        {"url": ""},
        {"url": "ftp://x/y"},
        {"secret": "k" * 129},
        {"is_active": "perhaps"},
    ):
        r = await client.patch(f"/webhooks/{record['id']}", json=body)
        assert r.status_code == 422, body
    assert (await client.get(f"/webhooks/{record['id']}")).json() == record


async def test_unknown_ids_are_404_everywhere(client):
    for method, path, body in [
        ("GET", "/webhooks/999", None),
        ("PATCH", "/webhooks/999", {"name": "x"}),
        ("DELETE", "/webhooks/999", None),
        ("GET", "/webhooks/999/deliveries", None),
    ]:
        r = await client.request(method, path, json=body)
        assert (r.status_code, r.json()) == (404, {"detail": "Webhook not found"}), (method, path)
    assert (await client.get("/webhooks/abc")).status_code == 422


async def test_delete_answers_204_and_removes_the_deliveries(client, rows, db):
    record = await create(client)
    async with db.session() as session:
        session.add(
            WebhookDelivery(
                webhook_id=record["id"], delivery_key="k-1", event_type="user.created", payload={"user_id": 1}
            )
        )
        await session.commit()
    r = await client.delete(f"/webhooks/{record['id']}")
    assert (r.status_code, r.content) == (204, b"")
    assert await rows(WebhookDelivery) == []
    assert (await client.get(f"/webhooks/{record['id']}")).status_code == 404
    assert (await client.delete(f"/webhooks/{record['id']}")).status_code == 404


async def test_deliveries_list_newest_first_filtered_by_status(client, db):
    record = await create(client)
    async with db.session() as session:
        for number, status in enumerate(["failed", "failed", "success", "pending"], start=1):
            session.add(
                WebhookDelivery(
                    webhook_id=record["id"],
                    delivery_key=f"k-{number}",
                    event_type="user.created",
                    payload={"user_id": number},
                    status=status,
                    attempt_number=number,
                )
            )
        await session.commit()
    page = (await client.get(f"/webhooks/{record['id']}/deliveries")).json()
    assert [d["attempt_number"] for d in page["items"]] == [4, 3, 2, 1]
    assert (page["total"], page["limit"], page["offset"]) == (4, 50, 0)
    item = page["items"][0]
    assert set(item) >= {
        "id",
        "webhook_id",
        "event_type",
        "payload",
        "response_status",
        "response_body",
        "status",
        "error_message",
        "attempt_number",
        "created_at",
        "delivered_at",
        "next_retry_at",
    }
    failed = (await client.get(f"/webhooks/{record['id']}/deliveries", params={"status": "failed"})).json()
    assert (failed["total"], [d["attempt_number"] for d in failed["items"]]) == (2, [2, 1])
    window = (
        await client.get(f"/webhooks/{record['id']}/deliveries", params={"limit": 2, "offset": 2})
    ).json()
    assert [d["attempt_number"] for d in window["items"]] == [2, 1]


async def test_stats_without_anything_are_zero(client):
    assert (await client.get("/webhooks/stats")).json() == {
        "total_webhooks": 0,
        "active_webhooks": 0,
        "total_deliveries": 0,
        "successful_deliveries": 0,
        "failed_deliveries": 0,
        "success_rate": 0.0,
    }


async def test_every_operation_needs_the_api_key(anon_client):
    for method, path in [
        ("GET", "/webhooks"),
        ("POST", "/webhooks"),
        ("GET", "/webhooks/stats"),
        ("GET", "/webhooks/1"),
        ("PATCH", "/webhooks/1"),
        ("DELETE", "/webhooks/1"),
        ("GET", "/webhooks/1/deliveries"),
    ]:
        assert (await anon_client.request(method, path)).status_code == 401, (method, path)

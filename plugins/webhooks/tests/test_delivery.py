"""Deliveries to a loopback receiver: signed, retried until they succeed, never lost across a
restart, counted; the request that raised the event never waits for the receiver."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from datetime import datetime

import httpx2
import pytest
from subsvc_webhooks.models import WebhookDelivery

from subsvc.app import create_app
from subsvc.db import utcnow
from subsvc.events import EVENTS_PER_STATEMENT
from subsvc.testing import API_KEY, created

from .conftest import create, with_worker

SECRET = "s3cr3t-Ключ"


async def make_webhook(client, receiver, event_type="user.created", **fields) -> dict:
    return await create(client, **{"name": "hook", "url": receiver.url, "event_type": event_type, **fields})


async def make_user(client, **fields) -> dict:
    return await created(client, "/users", {"first_name": "Иван", **fields})


async def deliveries(client, webhook_id: int, **params) -> list[dict]:
    r = await client.get(f"/webhooks/{webhook_id}/deliveries", params={"limit": 200, **params})
    assert r.status_code == 200
    return r.json()["items"]


def seconds(moment: str) -> float:
    return datetime.fromisoformat(moment).timestamp()


async def webhook(client, webhook_id: int) -> dict:
    return (await client.get(f"/webhooks/{webhook_id}")).json()


async def settled(client, webhook_id: int, successes: int) -> bool:
    """Has the webhook ``successes`` successful deliveries and nothing pending?"""
    items = await deliveries(client, webhook_id)
    done = [d for d in items if d["status"] == "success"]
    return len(done) == successes and not any(d["status"] == "pending" for d in items)


async def test_a_delivery_is_signed_and_carries_the_reference_body(client, receiver, wait_for):
    hook = await make_webhook(client, receiver, secret=SECRET)
    user = await make_user(client)
    await wait_for(lambda: settled(client, hook["id"], 1))

    (got,) = receiver.requests
    (delivery,) = await deliveries(client, hook["id"])
    expected_signature = hmac.new(SECRET.encode(), got.body, hashlib.sha256).hexdigest()
    assert got.headers["x-webhook-signature"] == f"sha256={expected_signature}"
    assert got.headers["x-webhook-event"] == "user.created"
    assert got.headers["x-webhook-id"] == str(hook["id"])
    assert got.headers["x-webhook-delivery"] == delivery["delivery_key"]
    assert abs(int(got.headers["x-webhook-timestamp"]) - time.time()) < 30
    assert got.headers["content-type"] == "application/json"
    # the body is the payload object itself, non-ASCII kept, as the reference sends it
    assert got.body == json.dumps(delivery["payload"], ensure_ascii=False).encode()
    assert "Иван".encode() in got.body
    assert json.loads(got.body)["user_id"] == user["id"]

    assert delivery["status"] == "success"
    assert delivery["attempt_number"] == 1
    assert delivery["response_status"] == 200
    assert delivery["response_body"] == "answer 200"
    assert delivery["error_message"] is None
    assert delivery["delivered_at"] is not None and delivery["next_retry_at"] is None
    record = await webhook(client, hook["id"])
    assert (record["success_count"], record["failure_count"]) == (1, 0)
    assert record["last_triggered_at"] is not None


@pytest.mark.webhook_env(WEBHOOK_POLL_SECONDS="60")
async def test_a_new_event_is_sent_at_once_not_at_the_next_poll(client, receiver, wait_for):
    hook = await make_webhook(client, receiver)
    await make_user(client)
    await wait_for(lambda: settled(client, hook["id"], 1), seconds=5)


async def test_without_a_secret_there_is_no_signature(client, receiver, wait_for):
    hook = await make_webhook(client, receiver)
    await make_user(client)
    await wait_for(lambda: settled(client, hook["id"], 1))
    assert "x-webhook-signature" not in receiver.requests[0].headers


async def test_a_500_is_retried_with_backoff_until_it_succeeds(client, receiver, wait_for):
    receiver.plan = [500, 503]
    hook = await make_webhook(client, receiver, secret=SECRET)
    await make_user(client)
    await wait_for(lambda: settled(client, hook["id"], 1))

    attempts = sorted(await deliveries(client, hook["id"]), key=lambda d: d["attempt_number"])
    assert [(d["attempt_number"], d["status"], d["response_status"]) for d in attempts] == [
        (1, "failed", 500),
        (2, "failed", 503),
        (3, "success", 200),
    ]
    assert attempts[0]["error_message"] == "HTTP 500: answer 500"
    assert attempts[0]["response_body"] == "answer 500"
    # a failed attempt says when the next one is due: 0.05 s, then 0.1 s later (±10 % jitter)
    waits = [seconds(attempts[i]["next_retry_at"]) - seconds(attempts[i + 1]["created_at"]) for i in (0, 1)]
    assert 0.044 <= waits[0] <= 0.056 and 0.089 <= waits[1] <= 0.111, waits
    assert attempts[2]["next_retry_at"] is None
    # one delivery id for every attempt of the event: receivers de-duplicate with it
    assert {d["delivery_key"] for d in attempts} == {
        r.headers["x-webhook-delivery"] for r in receiver.requests
    }
    assert len({d["delivery_key"] for d in attempts}) == 1
    assert len({r.body for r in receiver.requests}) == 1  # the same body, so the same signature
    record = await webhook(client, hook["id"])
    assert (record["success_count"], record["failure_count"], record["failing_since"]) == (1, 2, None)


@pytest.mark.webhook_env(WEBHOOK_TIMEOUT_SECONDS="0.5")
async def test_a_timeout_is_retried_until_it_succeeds(client, receiver, wait_for):
    receiver.plan = [("sleep", 2.0)]
    hook = await make_webhook(client, receiver)
    await make_user(client)
    await wait_for(lambda: settled(client, hook["id"], 1))
    attempts = sorted(await deliveries(client, hook["id"]), key=lambda d: d["attempt_number"])
    assert [(d["status"], d["error_message"], d["response_status"]) for d in attempts] == [
        ("failed", "Request timeout", None),
        ("success", None, 200),
    ]


async def test_a_refused_connection_is_retried_and_a_new_url_applies_to_pending_retries(
    client, receiver, wait_for
):
    with __import__("socket").socket() as closed:
        closed.bind(("127.0.0.1", 0))
        dead_url = f"http://127.0.0.1:{closed.getsockname()[1]}/hook"
    hook = await make_webhook(client, receiver)
    await client.patch(f"/webhooks/{hook['id']}", json={"url": dead_url})
    await make_user(client)

    async def failed_twice() -> bool:
        return len(await deliveries(client, hook["id"], status="failed")) >= 2

    await wait_for(failed_twice)
    first = (await deliveries(client, hook["id"], status="failed"))[-1]
    assert first["response_status"] is None and first["error_message"]
    await client.patch(f"/webhooks/{hook['id']}", json={"url": receiver.url})
    await wait_for(lambda: settled(client, hook["id"], 1))
    assert len(receiver.requests) == 1


@pytest.mark.webhook_env(WEBHOOK_MAX_ATTEMPTS="3")
async def test_a_delivery_is_given_up_after_the_last_attempt(client, receiver, wait_for):
    receiver.status = 500
    hook = await make_webhook(client, receiver)
    await make_user(client)

    async def three_failures() -> bool:
        return len(await deliveries(client, hook["id"], status="failed")) == 3

    await wait_for(three_failures)
    await asyncio.sleep(0.5)  # nothing more comes
    attempts = sorted(await deliveries(client, hook["id"]), key=lambda d: d["attempt_number"])
    assert [d["status"] for d in attempts] == ["failed"] * 3
    assert attempts[-1]["next_retry_at"] is None
    assert attempts[-1]["error_message"] == "HTTP 500: answer 500 (gave up after attempt 3)"
    assert len(receiver.requests) == 3


@pytest.mark.webhook_env(WEBHOOK_DEACTIVATE_AFTER_SECONDS="0.4", WEBHOOK_MAX_ATTEMPTS="100")
async def test_continuous_failure_deactivates_and_reactivating_sends_what_was_paused(
    client, receiver, wait_for
):
    receiver.status = 500
    hook = await make_webhook(client, receiver)
    await make_user(client)

    async def deactivated() -> bool:
        return not (await webhook(client, hook["id"]))["is_active"]

    await wait_for(deactivated)
    record = await webhook(client, hook["id"])
    assert record["deactivated_at"] is not None and record["failing_since"] is not None
    assert record["deactivation_reason"].startswith("Every delivery attempt failed for more than 0.4 s")
    assert "last error: HTTP 500: answer 500" in record["deactivation_reason"]
    listed = (await client.get("/webhooks", params={"is_active": False})).json()
    assert [w["id"] for w in listed["items"]] == [hook["id"]]

    # paused: the next attempt waits, and new events are not recorded for an inactive webhook
    sent = len(receiver.requests)
    await make_user(client)
    await asyncio.sleep(0.5)
    assert len(receiver.requests) == sent
    assert len(await deliveries(client, hook["id"], status="pending")) == 1

    receiver.status = 200
    r = await client.patch(f"/webhooks/{hook['id']}", json={"is_active": True})
    assert r.status_code == 200
    assert (r.json()["deactivation_reason"], r.json()["failing_since"]) == (None, None)
    await wait_for(lambda: settled(client, hook["id"], 1))
    assert (await webhook(client, hook["id"]))["is_active"] is True


async def test_the_raising_request_returns_before_the_receiver_answers(client, receiver, wait_for):
    receiver.gate = asyncio.Event()  # the receiver holds every request until released
    hook = await make_webhook(client, receiver)
    await make_user(client)  # returns while the receiver holds the delivery
    answered_request_at = time.monotonic()
    await wait_for(lambda: receiver.requests)  # the delivery is in flight, unanswered
    assert receiver.answered == []
    assert [d["status"] for d in await deliveries(client, hook["id"])] == ["pending"]
    receiver.gate.set()
    await wait_for(lambda: settled(client, hook["id"], 1))
    assert receiver.answered[0] > answered_request_at


async def test_events_reach_exact_and_star_webhooks_only_when_active(client, receiver, wait_for, rows):
    exact = await make_webhook(client, receiver, event_type="user.created")
    star = await make_webhook(client, receiver, event_type="*")
    other = await make_webhook(client, receiver, event_type="payment.completed")
    inactive = await make_webhook(client, receiver, event_type="*")
    await client.patch(f"/webhooks/{inactive['id']}", json={"is_active": False})

    user = await make_user(client)
    r = await client.post(f"/users/{user['id']}/balance", json={"amount_kopeks": -5})
    assert r.status_code == 400  # refused: the rolled-back change raises no event
    r = await client.post(f"/users/{user['id']}/balance", json={"amount_kopeks": 500})
    assert r.status_code == 200

    await wait_for(lambda: settled(client, star["id"], 3))
    await wait_for(lambda: settled(client, exact["id"], 1))
    await wait_for(lambda: settled(client, other["id"], 1))
    star_types = sorted(d["event_type"] for d in await deliveries(client, star["id"]))
    assert star_types == ["payment.completed", "transaction.created", "user.created"]
    assert [d["event_type"] for d in await deliveries(client, exact["id"])] == ["user.created"]
    assert [d["event_type"] for d in await deliveries(client, other["id"])] == ["payment.completed"]
    assert await deliveries(client, inactive["id"]) == []
    assert len(receiver.requests) == 5
    written = await rows(WebhookDelivery)  # by id: the balance change's two events in one statement
    assert [d.event_id for d in written] == sorted(d.event_id for d in written)  # in the events' order


async def test_a_transaction_with_more_events_than_one_statement_takes_writes_them_all_in_order(
    app, client, receiver, db, rows
):
    """``record_deliveries`` writes at most ``EVENTS_PER_STATEMENT`` events per statement
    (SQLite binds one parameter per event); a larger transaction takes several, in order."""
    hook = await make_webhook(client, receiver, event_type="*")
    count = EVENTS_PER_STATEMENT + 105
    payloads = [{"user_id": i, "language": "ru", "created_at": utcnow()} for i in range(count)]
    async with db.session() as session:
        for payload in payloads:
            app.state.events.publish(session, "user.created", payload)
        await session.commit()
    stored = await rows(WebhookDelivery, webhook_id=hook["id"])
    assert len(stored) == count
    assert [d.event_id for d in stored] == sorted(d.event_id for d in stored)
    assert [d.payload["user_id"] for d in stored] == list(range(count))
    assert len({d.delivery_key for d in stored}) == count


async def test_stats_and_deliveries_add_up(client, receiver, wait_for):
    receiver.plan = [500, 500, 500]
    hooks = [await make_webhook(client, receiver, event_type=t) for t in ("user.created", "*")]
    for _ in range(3):
        await make_user(client)
    await wait_for(lambda: settled(client, hooks[0]["id"], 3))
    await wait_for(lambda: settled(client, hooks[1]["id"], 3))

    stats = (await client.get("/webhooks/stats")).json()
    successes = failures = 0
    for hook in hooks:
        record = await webhook(client, hook["id"])
        ok = await deliveries(client, hook["id"], status="success")
        bad = await deliveries(client, hook["id"], status="failed")
        assert record["success_count"] == len(ok) == 3
        assert record["failure_count"] == len(bad)
        page = (await client.get(f"/webhooks/{hook['id']}/deliveries", params={"limit": 1})).json()
        assert page["total"] == len(ok) + len(bad)  # nothing pending once settled
        successes += len(ok)
        failures += len(bad)
    assert failures == 3
    assert stats == {
        "total_webhooks": 2,
        "active_webhooks": 2,
        "total_deliveries": successes + failures,
        "successful_deliveries": successes,
        "failed_deliveries": failures,
        "success_rate": round(successes / (successes + failures) * 100, 2),
    }
    assert len(receiver.requests) == successes + failures


@pytest.mark.own_apps
@pytest.mark.webhook_env(WEBHOOK_RETRY_BASE_SECONDS="0.3", WEBHOOK_RETRY_MAX_SECONDS="0.3")
async def test_a_restart_in_the_middle_of_retries_loses_nothing(
    subsvc_settings, subsvc_plugins, app, db, receiver, wait_for
):
    receiver.status = 500
    first = create_app(with_worker(subsvc_settings), plugins=subsvc_plugins)
    headers = {"X-API-Key": API_KEY}
    async with first.router.lifespan_context(first):
        transport = httpx2.ASGITransport(app=first)
        async with httpx2.AsyncClient(transport=transport, base_url="http://t", headers=headers) as one:
            hook = await make_webhook(one, receiver)
            users = [await make_user(one) for _ in range(3)]

            async def every_event_failed_once() -> bool:
                return len(await deliveries(one, hook["id"], status="failed")) >= 3

            await wait_for(every_event_failed_once)
    # stopped with retries pending: they are rows in the database, not messages in memory
    async with db.session() as session:
        pending = (
            await session.exec(WebhookDelivery.__table__.select().where(WebhookDelivery.status == "pending"))
        ).all()
    assert len(pending) == 3

    receiver.status = 200
    second = create_app(with_worker(subsvc_settings), plugins=subsvc_plugins)
    async with second.router.lifespan_context(second):
        transport = httpx2.ASGITransport(app=second)
        async with httpx2.AsyncClient(transport=transport, base_url="http://t", headers=headers) as two:
            await wait_for(lambda: settled(two, hook["id"], 3))
            delivered = await deliveries(two, hook["id"], status="success")
    assert sorted(d["payload"]["user_id"] for d in delivered) == sorted(u["id"] for u in users)
    assert len({d["delivery_key"] for d in delivered}) == 3


@pytest.mark.own_apps
async def test_with_redis_the_job_reaches_a_separate_worker(
    redis_url, subsvc_settings, subsvc_plugins, app, receiver, wait_for
):
    """A web instance without a worker writes the deliveries; a worker instance sends them."""
    import uuid

    base = subsvc_settings.model_copy(
        update={"REDIS_URL": redis_url, "JOBS_QUEUE": f"subsvc:test:{uuid.uuid4().hex}"}
    )
    web = create_app(base.model_copy(update={"JOBS_WORKER": False}), plugins=subsvc_plugins)
    worker = create_app(with_worker(base), plugins=subsvc_plugins)
    headers = {"X-API-Key": API_KEY}
    async with (
        web.router.lifespan_context(web),
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=web), base_url="http://t", headers=headers
        ) as one,
    ):
        hook = await make_webhook(one, receiver)
        await make_user(one)
        await asyncio.sleep(0.3)
        assert receiver.requests == []  # the web instance runs no jobs
        async with worker.router.lifespan_context(worker):
            await wait_for(lambda: settled(one, hook["id"], 1))
    assert len(receiver.requests) == 1

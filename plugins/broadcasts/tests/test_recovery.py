"""A stop ends a broadcast soon and keeps its counts; messages a dead sender had claimed are
never sent again, but counted as unknown (at most one message per recipient)."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from subsvc_broadcasts.models import BroadcastRecipient
from subsvc_broadcasts.sender import upkeep
from subsvc_broadcasts.settings import BroadcastsSettings

from subsvc.db import utcnow

URL = "/broadcasts"


@pytest.fixture
def broadcast_env() -> dict[str, Any]:
    return {"BROADCASTS_BATCH_SIZE": 5, "BROADCASTS_SEND_CONCURRENCY": 5, "BROADCASTS_LEASE_SECONDS": 0.5}


async def test_stop_ends_a_running_broadcast_soon_and_keeps_its_counts(
    client, users, finished, fake_bot_api, change_settings
):
    # a lease long enough that the sender surely holds it when the stop comes, however slow
    # the host: the stop then waits for the sender (``cancelling``)
    change_settings(BroadcastsSettings, BROADCASTS_LEASE_SECONDS=30)
    await users(40)
    fake_bot_api.delay = 0.1
    created = (await client.post(URL, json={"target": "all", "message_text": "x"})).json()
    await fake_bot_api.wait_for_calls(5, "sendMessage")
    stopped = await client.post(f"{URL}/{created['id']}/stop")
    assert stopped.status_code == 200 and stopped.json()["status"] == "cancelling"
    done = await finished(created["id"], seconds=5)
    arrived = len(fake_bot_api.calls_of("sendMessage"))
    assert done.status == "cancelled" and done.completed_at is not None
    assert 5 <= done.sent_count == arrived < 40 and done.total_count == 40
    await asyncio.sleep(0.3)
    assert len(fake_bot_api.calls_of("sendMessage")) == arrived  # nothing more went
    again = await client.post(f"{URL}/{created['id']}/stop")
    assert again.status_code == 400 and again.json() == {"detail": "Broadcast is not running"}


async def test_a_dead_senders_claim_is_counted_unknown_and_never_resent(
    app, client, users, finished, rows, fake_bot_api
):
    await users(12)
    fake_bot_api.delay = 0.3
    created = (await client.post(URL, json={"target": "all", "message_text": "x"})).json()
    await fake_bot_api.wait_for_calls(5, "sendMessage")
    # the sender dies between its claim (committed) and the record of the outcomes
    for task in list(app.state.jobs._running):
        task.cancel()
    await asyncio.sleep(0.6)  # its lease runs out
    claimed = await rows(BroadcastRecipient, state="sending")
    assert len(claimed) == 5
    fake_bot_api.delay = 0
    await upkeep(app)  # another sender takes over
    done = await finished(created["id"], seconds=10)
    assert (done.status, done.total_count, done.sent_count) == ("completed", 12, 7)
    assert (done.failed_count, done.unknown_count) == (5, 5)
    unknown = await rows(BroadcastRecipient, state="unknown")
    assert {r.id for r in unknown} == {r.id for r in claimed}
    per_chat = Counter(call.params["chat_id"] for call in fake_bot_api.calls_of("sendMessage"))
    assert max(per_chat.values()) == 1 and len(per_chat) == 12
    listed = (await client.get(URL)).json()["items"][0]
    assert listed["unknown_count"] == 5 and listed["progress_percent"] == 100.0


async def test_a_scheduled_broadcast_starts_when_due(app, client, users, finished, fake_bot_api):
    await users(3)
    later = await client.post(
        URL, json={"target": "all", "message_text": "x", "send_at": "2999-01-01T00:00:00Z"}
    )
    assert later.json()["status"] == "scheduled" and later.json()["total_count"] == 0
    soon = (
        await client.post(URL, json={"target": "all", "message_text": "soon", "send_at": _in(0.3)})
    ).json()
    assert soon["status"] == "scheduled" and soon["send_at"] is not None
    await upkeep(app)
    assert not fake_bot_api.calls_of("sendMessage")  # not due yet
    await asyncio.sleep(0.4)
    await upkeep(app)
    done = await finished(soon["id"], seconds=5)
    assert (done.status, done.total_count, done.sent_count) == ("completed", 3, 3)
    stopped = (await client.post(f"{URL}/{later.json()['id']}/stop")).json()
    assert stopped["status"] == "cancelled" and stopped["total_count"] == 0
    naive = await client.post(
        URL, json={"target": "all", "message_text": "x", "send_at": "2999-01-01T00:00:00"}
    )
    assert naive.status_code == 422


def _in(seconds: float) -> str:
    return (utcnow() + timedelta(seconds=seconds)).isoformat()

"""Restarts and crashes: a run stopped with the app resumes in the next process and every
recipient gets the message exactly once; recipients a dead sender left mid-call are never tried
again; a held lease keeps a second sender out."""

from __future__ import annotations

from datetime import timedelta

import httpx2
import sqlalchemy as sa
from subsvc_pinned_messages import sender
from subsvc_pinned_messages.models import PinnedMessageDelivery, PinnedMessageRun

from subsvc.app import create_app
from subsvc.db import utcnow
from subsvc.testing import asgi_transport

WEB = "/pinned-messages"


def _web_client(app) -> httpx2.AsyncClient:
    transport = asgi_transport(app)
    return httpx2.AsyncClient(transport=transport, base_url="http://testserver", headers={"X-API-Key": "k"})


async def test_a_restart_in_the_middle_resumes_and_nobody_gets_it_twice(
    app, subsvc_settings, subsvc_plugins, api_key, client, make_users, fake_bot_api, finished, progress
):
    recipients = 600
    chats = await make_users(recipients)
    first = create_app(subsvc_settings, plugins=subsvc_plugins)  # the process that will stop
    async with first.router.lifespan_context(first), _web_client(first) as http:
        http.headers["X-API-Key"] = api_key
        response = await http.post(WEB, params={"broadcast": True}, json={"content": "<b>Pinned</b>"})
        assert response.status_code == 201
        run_id = response.json()["broadcast_id"]
        await fake_bot_api.wait_for_calls(recipients // 4, "pinChatMessage")
    # the first process has stopped: what it started is finished and saved, the rest is pending
    stopped = await progress(client, run_id)
    assert stopped["status"] == "running" and 0 < stopped["sent_count"] < recipients
    async with app.state.db.session() as session:
        lease = (await session.exec(sa.select(PinnedMessageRun.lease_until))).scalar_one()
        states = dict(
            (
                await session.exec(
                    sa.select(PinnedMessageDelivery.state, sa.func.count()).group_by(
                        PinnedMessageDelivery.state
                    )
                )
            ).all()
        )
    assert lease is None  # given back: the next process need not wait for it to run out
    assert set(states) == {"sent", "pending"} and states["sent"] == stopped["sent_count"]

    await sender.upkeep(app)  # the next process's upkeep (it also runs once at start)
    done = await finished(client, run_id, seconds=120)
    assert (done["status"], done["sent_count"], done["failed_count"]) == ("completed", recipients, 0)
    sends: dict[int, int] = {}
    for call in fake_bot_api.calls_of("sendMessage"):
        sends[call.params["chat_id"]] = sends.get(call.params["chat_id"], 0) + 1
    assert sends == dict.fromkeys(chats, 1)  # every recipient exactly once
    assert all(fake_bot_api.pinned[chat] == list(fake_bot_api.messages[chat]) for chat in chats)


async def _run_left_by_a_dead_sender(client, make_users, finished, db) -> tuple[int, list[int]]:
    """A completed run of 5, rewound: 2 recipients mid-call, 1 pending, the lease run out."""
    chats = await make_users(5)
    answer = (await client.post(WEB, params={"broadcast": True}, json={"content": "x"})).json()
    await finished(client, answer["broadcast_id"])
    async with db.session() as session:
        await session.exec(
            sa.update(PinnedMessageDelivery)
            .where(PinnedMessageDelivery.messenger_id.in_(chats[:2]))
            .values(state="sending", done_at=None)
        )
        await session.exec(
            sa.update(PinnedMessageDelivery)
            .where(PinnedMessageDelivery.messenger_id == chats[2])
            .values(state="pending", done_at=None)
        )
        await session.exec(
            sa.update(PinnedMessageRun).values(
                status="running", completed_at=None, sent_count=2, lease_until=utcnow() - timedelta(seconds=1)
            )
        )
        await session.commit()
    return answer["broadcast_id"], chats


async def test_recipients_left_mid_call_are_not_tried_again(
    app, client, make_users, fake_bot_api, finished, db, rows
):
    run_id, chats = await _run_left_by_a_dead_sender(client, make_users, finished, db)
    fake_bot_api.reset()
    await sender.upkeep(app)
    done = await finished(client, run_id)
    assert (done["status"], done["sent_count"], done["failed_count"]) == ("completed", 3, 2)
    assert [c.params["chat_id"] for c in fake_bot_api.calls_of("sendMessage")] == [chats[2]]
    unknown = await rows(PinnedMessageDelivery, state="unknown")
    assert sorted(d.messenger_id for d in unknown) == chats[:2]
    assert unknown[0].error == "interrupted during the calls: not sent again"


async def test_a_held_lease_keeps_a_second_sender_out(app, client, make_users, fake_bot_api, finished, db):
    run_id, _ = await _run_left_by_a_dead_sender(client, make_users, finished, db)
    async with db.session() as session:
        await session.exec(sa.update(PinnedMessageRun).values(lease_until=utcnow() + timedelta(minutes=5)))
        await session.commit()
    fake_bot_api.reset()
    await sender.send_run(app, run_id)
    await sender.upkeep(app)
    assert fake_bot_api.calls == []
    run = (await client.get(f"{WEB}/broadcasts/{run_id}")).json()
    assert (run["status"], run["sent_count"]) == ("running", 2)

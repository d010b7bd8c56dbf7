"""Broadcast (send and pin) and unpin against the loopback fake Bot API: the request answers at
once, the background job serves every reachable user, records each recipient and the counts,
skips and marks users who blocked the bot, and a new run cancels the one under way."""

from __future__ import annotations

import sqlalchemy as sa
from subsvc_pinned_messages.models import PinnedMessageDelivery, PinnedMessageRun
from subsvc_segments.reachability import reachability_of
from subsvc_users.models import User

from subsvc.testing_messenger import FakeBotAPI

WEB = "/pinned-messages"
ADMIN = "/cabinet/admin/pinned-messages"


async def _broadcast_new(client, content: str = "<b>News</b>", **fields) -> dict:
    response = await client.post(WEB, params={"broadcast": "true"}, json={"content": content, **fields})
    assert response.status_code == 201, response.text
    return response.json()


async def test_every_reachable_user_gets_the_message_sent_silently_and_pinned(
    client, make_users, make_user, fake_bot_api: FakeBotAPI, finished, rows
):
    chats = await make_users(3)
    await make_user(messenger_id=None, email="mail-only@example.com")  # no chat: not a recipient
    await make_user(status="blocked")  # not an active user
    answer = await _broadcast_new(client, "<b>News</b> & more")
    assert (answer["sent_count"], answer["failed_count"], answer["total_count"]) == (0, 0, 3)
    progress = await finished(client, answer["broadcast_id"])
    assert (progress["status"], progress["kind"], progress["message_id"]) == (
        "completed",
        "broadcast",
        answer["message"]["id"],
    )
    assert (progress["total_count"], progress["sent_count"], progress["failed_count"]) == (3, 3, 0)
    assert progress["started_at"] and progress["completed_at"]
    for chat in chats:
        (message,) = fake_bot_api.sent_to(chat)
        assert message["text"] == "<b>News</b> &amp; more"
        assert fake_bot_api.pinned[chat] == [message["message_id"]]
    (send,) = [c for c in fake_bot_api.calls_of("sendMessage") if c.params["chat_id"] == chats[0]]
    assert (send.params["parse_mode"], send.params["disable_notification"]) == ("HTML", True)
    assert send.params["link_preview_options"] == {"is_disabled": True}
    (pin,) = [c for c in fake_bot_api.calls_of("pinChatMessage") if c.params["chat_id"] == chats[0]]
    assert pin.params["disable_notification"] is True
    assert len(fake_bot_api.calls_of("unpinAllChatMessages")) == 3  # earlier pins go first
    deliveries = await rows(PinnedMessageDelivery)
    assert sorted(d.messenger_id for d in deliveries) == chats
    assert {d.state for d in deliveries} == {"sent"}
    assert all(d.chat_message_id and d.done_at for d in deliveries)


async def test_media_goes_as_a_captioned_photo(client, make_users, fake_bot_api, finished):
    (chat,) = await make_users(1)
    answer = await _broadcast_new(client, "Look", media={"type": "photo", "file_id": "AgACAgIAAxk"})
    await finished(client, answer["broadcast_id"])
    (call,) = fake_bot_api.calls_of("sendPhoto")
    assert (call.params["photo"], call.params["caption"], call.params["chat_id"]) == (
        "AgACAgIAAxk",
        "Look",
        chat,
    )
    (message,) = fake_bot_api.sent_to(chat)
    assert fake_bot_api.pinned[chat] == [message["message_id"]]


async def test_blocked_chats_count_as_failed_are_marked_and_skipped_next_time(
    app, client, make_users, fake_bot_api, finished, db
):
    chats = await make_users(4)
    fake_bot_api.block(chats[0], chats[1])
    answer = await _broadcast_new(client)
    progress = await finished(client, answer["broadcast_id"])
    assert (progress["sent_count"], progress["failed_count"], progress["blocked_count"]) == (2, 2, 2)
    await reachability_of(app).flush()
    async with db.session() as session:
        marked = await session.exec(
            sa.select(User.messenger_id).where(User.messenger_blocked_at.is_not(None))
        )
        assert sorted(marked.scalars().all()) == chats[:2]
    again = (await client.post(f"{WEB}/{answer['message']['id']}/broadcast")).json()
    assert again["total_count"] == 2  # the users who blocked the bot are left out now
    await finished(client, again["broadcast_id"])
    assert len(fake_bot_api.calls_of("sendMessage")) == 2 + 2


async def test_a_failed_pin_is_a_failure_with_the_message_kept(
    client, make_users, fake_bot_api, finished, rows
):
    await make_users(2)
    fake_bot_api.fail("pinChatMessage", 400, "Bad Request: not enough rights to pin a message", times=1)
    answer = await _broadcast_new(client)
    progress = await finished(client, answer["broadcast_id"])
    assert (progress["sent_count"], progress["failed_count"], progress["blocked_count"]) == (1, 1, 0)
    (failed,) = await rows(PinnedMessageDelivery, state="failed")
    assert failed.error == "sent, not pinned: Bad Request: not enough rights to pin a message"
    assert failed.chat_message_id is not None


async def test_activate_and_broadcast_endpoints_send_too(client, make_users, fake_bot_api, finished):
    (chat,) = await make_users(1)
    first = (await client.post(WEB, json={"content": "first"})).json()["message"]
    await client.post(WEB, json={"content": "second"})
    assert fake_bot_api.calls == []
    activated = await client.post(f"{WEB}/{first['id']}/activate", params={"broadcast": True})
    assert activated.status_code == 200
    body = activated.json()
    assert (body["message"]["is_active"], body["total_count"]) == (True, 1)
    await finished(client, body["broadcast_id"])
    assert [m["text"] for m in fake_bot_api.sent_to(chat)] == ["first"]
    inactive = (await client.post(WEB, json={"content": "third"})).json()["message"]
    await client.post(f"{WEB}/{first['id']}/activate")
    sent = await client.post(f"{WEB}/{inactive['id']}/broadcast")  # not active: sent all the same
    assert (sent.status_code, sent.json()["message"]["is_active"]) == (200, False)
    await finished(client, sent.json()["broadcast_id"])
    assert [m["text"] for m in fake_bot_api.sent_to(chat)] == ["first", "third"]
    missing = await client.post(f"{WEB}/4242/broadcast")
    assert (missing.status_code, missing.json()) == (404, {"detail": "Pinned message not found"})


async def test_unpin_deactivates_and_unpins_every_chat(client, make_users, fake_bot_api, finished):
    chats = await make_users(3)
    fake_bot_api.block(chats[2])
    answer = await _broadcast_new(client)
    await finished(client, answer["broadcast_id"])
    assert all(fake_bot_api.pinned.get(chat) for chat in chats[:2])
    fake_bot_api.unblock(chats[2])
    response = await client.post(f"{WEB}/active/unpin")
    assert response.status_code == 200
    body = response.json()
    assert (body["unpinned_count"], body["failed_count"], body["was_active"], body["total_count"]) == (
        0,
        0,
        True,
        2,  # the chat that refused the bot is left out
    )
    progress = await finished(client, body["broadcast_id"])
    assert (progress["kind"], progress["sent_count"], progress["failed_count"]) == ("unpin", 2, 0)
    assert not any(fake_bot_api.pinned.get(chat) for chat in chats)
    assert (await client.get(f"{WEB}/active")).json() is None
    nothing = await client.post(f"{WEB}/active/unpin")
    assert nothing.json() == {
        "unpinned_count": 0,
        "failed_count": 0,
        "was_active": False,
        "broadcast_id": None,
        "total_count": 0,
    }


async def test_nobody_to_reach_is_a_completed_run_and_no_call(client, make_user, fake_bot_api, progress):
    await make_user(messenger_id=None, email="only@example.com")
    answer = await _broadcast_new(client)
    assert answer["total_count"] == 0
    run = await progress(client, answer["broadcast_id"])
    assert (run["status"], run["total_count"]) == ("completed", 0)
    assert fake_bot_api.calls == []


async def test_a_new_run_cancels_the_one_under_way(
    client, make_users, fake_bot_api, finished, rows, wait_for, small_batches
):
    await make_users(30)
    fake_bot_api.delays["sendMessage"] = 0.05
    first = await _broadcast_new(client, "first")
    await fake_bot_api.wait_for_calls(1, "sendMessage")
    fake_bot_api.delays.clear()
    second = await _broadcast_new(client, "second")
    done = await finished(client, second["broadcast_id"])
    assert (done["status"], done["sent_count"]) == ("completed", 30)

    async def first_sender_stopped() -> bool:
        states = {d.state for d in await rows(PinnedMessageDelivery, run_id=first["broadcast_id"])}
        return "sending" not in states

    await wait_for(first_sender_stopped)
    cancelled = await finished(client, first["broadcast_id"])
    assert cancelled["status"] == "cancelled" and 0 < cancelled["sent_count"] < 30
    states = [d.state for d in await rows(PinnedMessageDelivery, run_id=first["broadcast_id"])]
    assert states.count("sent") == cancelled["sent_count"]
    assert states.count("skipped") == 30 - cancelled["sent_count"]
    firsts = [c for c in fake_bot_api.calls_of("sendMessage") if c.params["text"] == "first"]
    assert len(firsts) == cancelled["sent_count"]


async def test_deleting_a_message_cancels_its_broadcast(
    client, make_users, fake_bot_api, finished, small_batches
):
    await make_users(20)
    fake_bot_api.delays["sendMessage"] = 0.05
    answer = await _broadcast_new(client)
    await fake_bot_api.wait_for_calls(1, "sendMessage")
    deleted = await client.delete(f"{WEB}/{answer['message']['id']}")
    assert deleted.status_code == 204
    progress = await finished(client, answer["broadcast_id"])
    assert (progress["status"], progress["message_id"]) == ("cancelled", None)
    assert len(fake_bot_api.calls_of("sendMessage")) < 20


async def test_without_a_bot_token_sending_is_refused_and_nothing_changes(app, client, rows):
    app.state.messenger.token = None
    response = await client.post(WEB, params={"broadcast": True}, json={"content": "x"})
    assert (response.status_code, response.json()) == (
        503,
        {"detail": "The messenger bot is not configured (BOT_TOKEN): nothing can be sent"},
    )
    assert await rows(PinnedMessageRun) == []
    assert (await client.post(WEB, json={"content": "x"})).status_code == 201  # no sending: fine
    assert (await client.post(f"{WEB}/active/unpin")).status_code == 503
    assert (await client.get(f"{WEB}/active")).json()["is_active"] is True


async def test_runs_are_listed_newest_first_unknown_ones_are_404_and_ids_beyond_integer_422(
    client, make_users, finished
):
    await make_users(1)
    first = await _broadcast_new(client, "a")
    await finished(client, first["broadcast_id"])
    second = await _broadcast_new(client, "b")
    await finished(client, second["broadcast_id"])
    listed = (await client.get(f"{WEB}/broadcasts", params={"limit": 1})).json()
    assert (listed["total"], [run["id"] for run in listed["items"]]) == (2, [second["broadcast_id"]])
    for unknown in ("77", "0", "2147483647"):
        response = await client.get(f"{WEB}/broadcasts/{unknown}")
        assert (response.status_code, response.json()) == (404, {"detail": "Broadcast not found"})
    beyond = await client.get(f"{WEB}/broadcasts/99999999999")
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["path", "broadcast_id"], "less_than_equal")
    ]
    assert (await client.get(f"{WEB}/broadcasts/abc")).status_code == 422


async def test_unpinning_earlier_pins_first_can_be_turned_off(
    client, make_users, fake_bot_api, finished, plugin_settings
):
    plugin_settings(PINNED_MESSAGES_UNPIN_BEFORE_PIN=False)
    await make_users(2)
    answer = await _broadcast_new(client)
    await finished(client, answer["broadcast_id"])
    assert fake_bot_api.calls_of("unpinAllChatMessages") == []
    assert len(fake_bot_api.calls_of("pinChatMessage")) == 2

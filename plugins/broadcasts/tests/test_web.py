"""`/broadcasts`: a broadcast reaches every reachable user of its segment once, in the
background, with the chosen text, media and buttons; history, stop, refusals."""

from __future__ import annotations

from subsvc_segments.reachability import reachability_of
from subsvc_users.models import User

URL = "/broadcasts"
FIRST_CHAT = 500_000_000  # the first messenger id of the seeded users


async def test_a_broadcast_reaches_every_user_of_the_segment_once(client, users, finished, fake_bot_api):
    await users(5)
    response = await client.post(
        URL,
        json={"target": "all", "message_text": "  <b>Hello</b>  ", "selected_buttons": ["balance", "home"]},
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["total_count"] == 5 and created["target_type"] == "all"
    assert created["message_text"] == "<b>Hello</b>" and created["has_media"] is False
    assert created["status"] in ("queued", "in_progress", "completed")
    assert created["admin_name"] == "Bootstrap Token"
    done = await finished(created["id"])
    assert (done.status, done.sent_count, done.failed_count, done.blocked_count) == ("completed", 5, 0, 0)
    calls = fake_bot_api.calls_of("sendMessage")
    assert sorted(call.params["chat_id"] for call in calls) == [FIRST_CHAT + i for i in range(5)]
    first = calls[0].params
    assert first["text"] == "<b>Hello</b>" and first["parse_mode"] == "HTML"
    keyboard = first["reply_markup"]["inline_keyboard"]
    assert keyboard == [
        [{"text": "💰 Пополнить баланс", "callback_data": "balance_topup"}],
        [{"text": "🏠 На главную", "callback_data": "back_to_menu"}],
    ]
    listed = (await client.get(URL)).json()
    assert listed["total"] == 1 and listed["limit"] == 50 and listed["offset"] == 0
    item = listed["items"][0]
    assert (item["sent_count"], item["status"], item["progress_percent"]) == (5, "completed", 100.0)
    assert item["completed_at"] is not None


async def test_media_goes_with_its_caption(client, users, finished, fake_bot_api):
    await users(2)
    body = {
        "target": "all",
        "message_text": "text",
        "selected_buttons": [],
        "media": {"type": "photo", "file_id": "AgACphoto", "caption": "look"},
    }
    created = (await client.post(URL, json=body)).json()
    assert created["has_media"] is True and created["media_type"] == "photo"
    assert created["media_file_id"] == "AgACphoto" and created["media_caption"] == "look"
    await finished(created["id"])
    photos = fake_bot_api.calls_of("sendPhoto")
    assert len(photos) == 2 and not fake_bot_api.calls_of("sendMessage")
    assert photos[0].params["photo"] == "AgACphoto" and photos[0].params["caption"] == "look"
    assert "reply_markup" not in photos[0].params


async def test_users_who_blocked_the_bot_are_counted_marked_and_skipped_next_time(
    client, app, users, finished, rows, fake_bot_api
):
    ids = await users(4)
    fake_bot_api.block(FIRST_CHAT + 1)
    fake_bot_api.fail("sendMessage", 400, "Bad Request: chat not found")
    first = (await client.post(URL, json={"target": "all", "message_text": "one"})).json()
    done = await finished(first["id"])
    assert (done.total_count, done.sent_count, done.blocked_count, done.failed_count) == (4, 2, 1, 1)
    await reachability_of(app).flush()
    blocked = await rows(User, id=ids[1])
    assert blocked[0].messenger_blocked_at is not None
    fake_bot_api.calls.clear()
    second = (await client.post(URL, json={"target": "all", "message_text": "two"})).json()
    assert second["total_count"] == 3
    await finished(second["id"])
    assert FIRST_CHAT + 1 not in {call.params["chat_id"] for call in fake_bot_api.calls_of("sendMessage")}


async def test_refusals(client, anon_client, users):
    assert (await anon_client.post(URL, json={"target": "all", "message_text": "x"})).status_code == 401
    bad_target = await client.post(URL, json={"target": "nobody", "message_text": "x"})
    assert bad_target.status_code == 400 and bad_target.json() == {"detail": "Invalid target: nobody"}
    unknown_tariff = await client.post(URL, json={"target": "tariff_99", "message_text": "x"})
    assert unknown_tariff.json() == {"detail": "Invalid target: tariff_99"}
    button = await client.post(URL, json={"target": "all", "message_text": "x", "selected_buttons": ["nope"]})
    assert button.status_code == 400 and button.json() == {"detail": "Invalid button key"}
    blank = await client.post(URL, json={"target": "all", "message_text": "   "})
    assert blank.status_code == 400 and blank.json() == {"detail": "Message text must not be empty"}
    media = {"type": "video", "file_id": "v"}
    long_caption = await client.post(URL, json={"target": "all", "message_text": "x" * 1025, "media": media})
    assert long_caption.status_code == 400 and "1024" in long_caption.json()["detail"]
    invalid = await client.post(URL, json={"target": "all", "message_text": "", "media": {"type": "gif"}})
    assert invalid.status_code == 422
    locations = {tuple(error["loc"]) for error in invalid.json()["detail"]}
    assert {("body", "message_text"), ("body", "media", "type"), ("body", "media", "file_id")} <= locations
    assert (await client.post(f"{URL}/abc/stop")).status_code == 422
    missing = await client.post(f"{URL}/999/stop")
    assert missing.status_code == 404 and missing.json() == {"detail": "Broadcast not found"}
    assert (await client.get(URL, params={"limit": 201})).status_code == 422
    assert (await client.get(URL)).json()["total"] == 0  # nothing refused was recorded


async def test_nobody_to_write_to_completes_at_once(client, broadcast_row):
    created = (await client.post(URL, json={"target": "all", "message_text": "x"})).json()
    assert (created["status"], created["total_count"], created["progress_percent"]) == ("completed", 0, 0.0)
    stopped = await client.post(f"{URL}/{created['id']}/stop")
    assert stopped.status_code == 400 and stopped.json() == {"detail": "Broadcast is not running"}
    assert (await broadcast_row(created["id"])).completed_at is not None

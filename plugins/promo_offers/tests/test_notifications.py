"""Broadcast notifications against the loopback fake Bot API: the request answers at once, the
background job sends one message with a claim button per reachable recipient, counts sent and
failed (blocked users included) in the database, and resumes after an interruption."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from subsvc_promo_offers import sender
from subsvc_promo_offers.models import DiscountOffer, OfferBroadcast, OfferBroadcastRecipient
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.testing_messenger import FakeBotAPI

ADMIN = "/cabinet/admin/promo-offers"
TERMS = {"notification_type": "winback", "valid_hours": 24, "discount_percent": 10, "send_notification": True}


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    """The app's messenger client talks to the fake, without the platform's pacing."""
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


async def _progress(admin, broadcast_id: int) -> dict[str, Any]:
    response = await admin.get(f"{ADMIN}/broadcasts/{broadcast_id}")
    assert response.status_code == 200
    return response.json()


async def _finished(admin, wait_for, broadcast_id: int, seconds: float = 30) -> dict[str, Any]:
    async def done() -> bool:
        return (await _progress(admin, broadcast_id))["status"] == "completed"

    await wait_for(done, seconds)
    return await _progress(admin, broadcast_id)


async def test_each_reachable_recipient_gets_a_message_with_a_claim_button(
    admin, make_user, fake_bot_api, wait_for, rows, admin_user, member_user
):
    email_only = await make_user(messenger_id=None, email="e@example.com")
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all"})).json()
    assert answer["created_offers"] == 3 and email_only.id in answer["user_ids"]
    assert (answer["notifications_sent"], answer["notifications_failed"]) == (0, 0)
    assert answer["messenger_recipients"] == 2  # the e-mail-only user has no chat
    progress = await _finished(admin, wait_for, answer["broadcast_id"])
    assert (progress["total_count"], progress["sent_count"], progress["failed_count"]) == (2, 2, 0)
    assert (progress["target"], progress["notification_type"], progress["created_by"]) == (
        "all",
        "winback",
        1,
    )
    assert progress["started_at"] and progress["completed_at"]

    offers = {offer.user_id: offer.id for offer in await rows(DiscountOffer)}
    (message,) = fake_bot_api.sent_to(member_user.messenger_id)
    assert "Скидка <b>10%</b> на подписку" in message["text"]
    assert "24 ч." in message["text"]
    buttons = message["reply_markup"]["inline_keyboard"]
    assert buttons[0] == [
        {"text": "🎁 Получить", "callback_data": f"claim_discount_{offers[member_user.id]}"}
    ]
    assert buttons[1][0]["callback_data"] == "promo_offer_close"
    (call,) = [
        c for c in fake_bot_api.calls_of("sendMessage") if c.params["chat_id"] == admin_user.messenger_id
    ]
    assert call.params["parse_mode"] == "HTML"
    states = {row.user_id: row.state for row in await rows(OfferBroadcastRecipient)}
    assert states == {admin_user.id: "sent", member_user.id: "sent"}


async def test_a_custom_text_and_button_with_placeholders(admin, member_user, fake_bot_api, wait_for):
    body = {
        **TERMS,
        "user_id": member_user.id,
        "message_text": "<b>{discount_percent}%</b> for {valid_hours} h, "
        "then {active_discount_hours} h on {server_name}",
        "button_text": "Take it",
        "extra_data": {"active_discount_hours": 6, "server_name": "NL-1"},
    }
    answer = (await admin.post(f"{ADMIN}/broadcast", json=body)).json()
    await _finished(admin, wait_for, answer["broadcast_id"])
    (message,) = fake_bot_api.sent_to(member_user.messenger_id)
    assert message["text"] == "<b>10%</b> for 24 h, then 6 h on NL-1"
    assert message["reply_markup"]["inline_keyboard"][0][0]["text"] == "Take it"


async def test_a_text_that_does_not_render_is_sent_as_it_is(admin, member_user, fake_bot_api, wait_for):
    text = "Hi {name} {"
    answer = (
        await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "user_id": 2, "message_text": text})
    ).json()
    await _finished(admin, wait_for, answer["broadcast_id"])
    (message,) = fake_bot_api.sent_to(member_user.messenger_id)
    assert message["text"] == text


async def test_blocked_users_count_as_failed_and_are_recorded(admin, make_user, fake_bot_api, wait_for, db):
    users = [await make_user() for _ in range(4)]
    fake_bot_api.block(users[0].messenger_id, users[1].messenger_id)
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all"})).json()
    progress = await _finished(admin, wait_for, answer["broadcast_id"])
    assert progress["total_count"] == 6
    assert (progress["sent_count"], progress["failed_count"], progress["blocked_count"]) == (4, 2, 2)

    async def recorded() -> bool:  # the segments plugin writes what the client heard
        async with db.session() as session:
            blocked = await session.exec(sa.select(User.id).where(User.messenger_blocked_at.is_not(None)))
            return sorted(blocked.scalars().all()) == sorted([users[0].id, users[1].id])

    await wait_for(recorded, 10)
    again = (
        await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "notification_type": "next", "target": "all"})
    ).json()
    assert again["messenger_recipients"] == 4  # the blocked ones are left out now


async def test_other_failures_are_counted_too(admin, make_user, fake_bot_api, wait_for, rows):
    await make_user()
    fake_bot_api.fail("sendMessage", 400, "Bad Request: chat not found", times=1)
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all"})).json()
    progress = await _finished(admin, wait_for, answer["broadcast_id"])
    assert (progress["sent_count"], progress["failed_count"], progress["blocked_count"]) == (2, 1, 0)
    (failed,) = await rows(OfferBroadcastRecipient, state="failed")
    assert failed.error == "Bad Request: chat not found"


async def test_without_a_bot_token_notifications_are_refused_and_nothing_changes(
    app, admin, member_user, rows
):
    app.state.messenger.token = None
    response = await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "user_id": member_user.id})
    assert (response.status_code, response.json()) == (
        503,
        {"detail": "The messenger bot is not configured (BOT_TOKEN): notifications cannot be sent"},
    )
    assert await rows(DiscountOffer) == [] and await rows(OfferBroadcast) == []
    quiet = await admin.post(
        f"{ADMIN}/broadcast", json={**TERMS, "user_id": member_user.id, "send_notification": False}
    )
    assert quiet.status_code == 201


async def test_nobody_reachable_means_a_finished_broadcast_and_no_job(admin, make_user, fake_bot_api):
    user = await make_user(messenger_id=None, email="x@example.com")
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "user_id": user.id})).json()
    assert answer["messenger_recipients"] == 0
    progress = await _progress(admin, answer["broadcast_id"])
    assert (progress["status"], progress["total_count"]) == ("completed", 0)
    assert fake_bot_api.calls == []


async def test_an_unknown_broadcast_is_404_and_one_beyond_integer_422(admin):
    for broadcast_id in ("77", "2147483647"):
        response = await admin.get(f"{ADMIN}/broadcasts/{broadcast_id}")
        assert (response.status_code, response.json()) == (404, {"detail": "Broadcast not found"})
    response = await admin.get(f"{ADMIN}/broadcasts/99999999999")
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["path", "broadcast_id"], "less_than_equal")
    ]


async def test_an_interrupted_broadcast_is_resumed_by_the_upkeep(
    app, admin, make_user, fake_bot_api, db, wait_for
):
    for _ in range(3):
        await make_user()
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all"})).json()
    broadcast_id = answer["broadcast_id"]
    await _finished(admin, wait_for, broadcast_id)
    fake_bot_api.reset()

    # a sender that died mid-way: three messages still pending, its lease run out
    async with db.session() as session:
        await session.exec(
            sa.update(OfferBroadcastRecipient)
            .where(OfferBroadcastRecipient.user_id > 2)
            .values(state="pending", sent_at=None)
        )
        await session.exec(
            sa.update(OfferBroadcast).values(
                status="running", completed_at=None, lease_until=utcnow(), sent_count=2
            )
        )
        await session.commit()
    await sender.upkeep(app)
    progress = await _finished(admin, wait_for, broadcast_id)
    assert (progress["sent_count"], progress["failed_count"]) == (5, 0)
    assert len(fake_bot_api.calls_of("sendMessage")) == 3  # only the pending ones again


async def test_a_held_lease_keeps_a_second_sender_out(app, admin, member_user, fake_bot_api, db, wait_for):
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "user_id": member_user.id})).json()
    await _finished(admin, wait_for, answer["broadcast_id"])
    async with db.session() as session:
        held = utcnow() + timedelta(minutes=5)
        await session.exec(sa.update(OfferBroadcast).values(status="running", lease_until=held))
        await session.exec(sa.update(OfferBroadcastRecipient).values(state="pending"))
        await session.commit()
    await sender.send_broadcast(app, answer["broadcast_id"])
    await sender.upkeep(app)
    assert len(fake_bot_api.calls_of("sendMessage")) == 1  # nothing more was sent
    assert (await _progress(admin, answer["broadcast_id"]))["status"] == "running"


async def test_ten_thousand_recipients_answer_at_once_and_complete_in_the_background(
    admin, db, fake_bot_api, wait_for, member_user
):
    now = utcnow()
    first_chat = 800_000_000
    async with db.session() as session:
        session.add_all(
            User(messenger_id=first_chat + n, username=f"bulk{n}", created_at=now, updated_at=now)
            for n in range(10_000 - 2)
        )
        await session.commit()
    blocked = [first_chat + n for n in range(0, 10_000 - 2, 40)]  # 250 chats refuse the bot
    fake_bot_api.block(*blocked)

    response = await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all"})
    assert response.status_code == 201
    answer = response.json()
    assert (answer["created_offers"], len(answer["user_ids"]), answer["messenger_recipients"]) == (
        10_000,
        10_000,
        10_000,
    )
    at_answer = await _progress(admin, answer["broadcast_id"])
    assert (
        at_answer["sent_count"] + at_answer["failed_count"] < 10_000
    )  # the sending goes on after the answer
    assert len(fake_bot_api.calls_of("sendMessage")) < 10_000

    progress = await _finished(admin, wait_for, answer["broadcast_id"], seconds=600)
    assert progress["total_count"] == 10_000
    assert (progress["sent_count"], progress["failed_count"], progress["blocked_count"]) == (9_750, 250, 250)
    assert len(fake_bot_api.calls_of("sendMessage")) == 10_000

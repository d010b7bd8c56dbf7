"""Messenger notifications, sent by a job after the commit to the loopback fake Bot API: the
owner's notice of an administrator's reply, the administrators' chat alerts."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from subsvc_ticket_notifications.deliveries import send_due
from subsvc_ticket_notifications.models import FAILED, PENDING, SENT, SKIPPED, MessengerDelivery

from subsvc.db import utcnow
from subsvc.testing import USER_MESSENGER_ID, created

from .conftest import admin_reply, user_message

ADMIN_CHAT, TOPIC = -100200300, 7


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api):
    return fake_bot_api.settings(
        ADMIN_NOTIFICATIONS_CHAT_ID=str(ADMIN_CHAT), ADMIN_NOTIFICATIONS_TOPIC_ID=TOPIC
    )


@pytest.fixture(autouse=True)
async def _switched_on(app, admin_user, member_user, configure):
    app.state.messenger.max_retries = 0  # a 5xx comes back at once: the delivery's own retry is tested
    await configure(admin_ticket_notifications_enabled=True, user_ticket_notifications_enabled=True)


def sends(fake, chat):
    return [call.params for call in fake.calls_of("sendMessage") if call.params["chat_id"] == chat]


async def settled(rows, wait_for, count):
    """The deliveries once ``count`` of them are no longer pending."""

    async def done():
        found = await rows(MessengerDelivery)
        return found if sum(row.status != PENDING for row in found) >= count else None

    return await wait_for(done)


async def test_new_ticket_and_user_message_alert_the_admin_chat(
    member, open_ticket, fake_bot_api, rows, wait_for
):
    ticket = await open_ticket(title="<VPN> & co", message="Broken <script>")
    await user_message(member, ticket["id"], "Any news?")
    await settled(rows, wait_for, 2)
    first, second = sends(fake_bot_api, ADMIN_CHAT)
    assert first["message_thread_id"] == TOPIC and first["parse_mode"] == "HTML"
    assert f"New ticket #{ticket['id']}" in first["text"]
    assert "&lt;VPN&gt; &amp; co" in first["text"] and "Broken &lt;script&gt;" in first["text"]
    assert f"messenger id <code>{USER_MESSENGER_ID}</code>" in first["text"]
    assert f"New message in ticket #{ticket['id']}" in second["text"] and "Any news?" in second["text"]
    assert {row.status for row in await rows(MessengerDelivery)} == {SENT}


async def test_admin_reply_notifies_the_owner_in_the_messenger(
    admin, open_ticket, fake_bot_api, rows, wait_for
):
    ticket = await open_ticket()
    await admin_reply(admin, ticket["id"], "Restart <b>it</b> " + "x" * 600)
    await settled(rows, wait_for, 2)
    (notice,) = sends(fake_bot_api, USER_MESSENGER_ID)
    assert notice["text"].startswith(f"💬 <b>Reply received for ticket #{ticket['id']}</b>")
    assert "Restart &lt;b&gt;it&lt;/b&gt;" in notice["text"] and notice["text"].endswith("...")


async def test_owner_without_messenger_id_is_skipped(admin, make_user, cabinet, fake_bot_api, rows, wait_for):
    user = await make_user(email="mail-only@example.com", messenger_id=None)
    async with cabinet(user.id) as http:
        ticket = await created(http, "/cabinet/tickets", {"title": "By mail", "message": "Hi"}, 200)
    await admin_reply(admin, ticket["id"], "Hello")
    found = await settled(rows, wait_for, 2)
    assert sorted(row.status for row in found) == [SENT, SKIPPED]
    assert (
        "#" + str(user.id) in sends(fake_bot_api, ADMIN_CHAT)[0]["text"]
        or "mail-only@example.com" in sends(fake_bot_api, ADMIN_CHAT)[0]["text"]
    )


async def test_switches_off_send_nothing(admin, open_ticket, configure, fake_bot_api, rows):
    await configure(admin_ticket_notifications_enabled=False, user_ticket_notifications_enabled=False)
    ticket = await open_ticket()
    await admin_reply(admin, ticket["id"], "Hello")
    assert await rows(MessengerDelivery) == []
    assert fake_bot_api.calls_of("sendMessage") == []


async def test_a_refused_message_fails_and_a_failing_one_is_retried(
    app, admin, open_ticket, fake_bot_api, rows, wait_for
):
    fake_bot_api.fail("sendMessage", 400, "Bad Request: chat not found")
    await open_ticket()
    (failed,) = await settled(rows, wait_for, 1)
    assert failed.status == FAILED and failed.error == "Bad Request: chat not found"
    fake_bot_api.fail("sendMessage", 502, "Bad Gateway")  # transient: tried again later
    ticket_id = failed.ticket_id
    await admin_reply(admin, ticket_id, "Hello")

    async def postponed():
        found = [row for row in await rows(MessengerDelivery) if row.id != failed.id]
        return found and found[0].attempts == 1 and found[0].due_at > utcnow() and found[0]

    retried = await wait_for(postponed)
    assert retried.status == PENDING
    assert await send_due(app) == 0  # not due yet
    assert await send_due(app, now=utcnow() + timedelta(minutes=2)) == 1
    assert len(fake_bot_api.sent_to(USER_MESSENGER_ID)) == 1  # accepted once (after the 502)


async def test_concurrent_senders_send_once(app, open_ticket, configure, fake_bot_api, rows, wait_for):
    fake_bot_api.fail("sendMessage", 502, "Bad Gateway")
    await open_ticket()

    async def postponed():
        found = await rows(MessengerDelivery)
        return found and found[0].error is not None

    await wait_for(postponed)
    later = utcnow() + timedelta(minutes=5)
    results = await asyncio.gather(*(send_due(app, now=later) for _ in range(4)))
    assert sum(results) == 1
    assert len(fake_bot_api.calls_of("sendMessage")) == 2  # the 502, then one message

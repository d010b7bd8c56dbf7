"""Users who blocked the bot: the messenger client's answers end up on the user row, and
messenger recipients leave them out."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import pytest
from subsvc_segments.reachability import reachability_of
from subsvc_segments.recipients import recipients, resolve
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.messenger import Delivery, Messenger, MessengerBlocked
from subsvc.testing_messenger import BLOCKED, FakeBotAPI


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


async def blocked_at(rows, user_id: int) -> datetime | None:
    (user,) = await rows(User, id=user_id)
    return user.messenger_blocked_at


async def test_a_refusal_is_recorded_on_the_user(app, rows, insert_user, fake_bot_api: FakeBotAPI):
    refusing = await insert_user()
    other = await insert_user()
    fake_bot_api.block(refusing.messenger_id)
    messenger: Messenger = app.state.messenger
    before = utcnow()

    assert await messenger.deliver(refusing.messenger_id, "hello") == Delivery("blocked", error=BLOCKED)
    assert (await messenger.deliver(other.messenger_id, "hello")).status == "sent"
    await reachability_of(app).flush()

    marked = await blocked_at(rows, refusing.id)
    assert marked is not None and before <= marked <= utcnow()
    assert await blocked_at(rows, other.id) is None
    segment = resolve(app, "all")
    assert segment is not None
    assert [r.user_id for r in await recipients(app, segment, reachable=True)] == [other.id]
    assert {r.user_id for r in await recipients(app, segment)} == {refusing.id, other.id}


async def test_every_chat_call_records_a_refusal(app, rows, insert_user, fake_bot_api: FakeBotAPI):
    user = await insert_user()
    fake_bot_api.block(user.messenger_id, description="Forbidden: user is deactivated")

    with pytest.raises(MessengerBlocked):
        await app.state.messenger.unpin_all_chat_messages(user.messenger_id)
    await reachability_of(app).flush()

    assert await blocked_at(rows, user.id) is not None


async def test_recording_happens_in_the_background(app, rows, insert_user, fake_bot_api: FakeBotAPI):
    user = await insert_user()
    fake_bot_api.block(user.messenger_id)

    await app.state.messenger.deliver(user.messenger_id, "hello")  # returns before any write

    for _ in range(100):
        if await blocked_at(rows, user.id) is not None:
            break
        await asyncio.sleep(0.05)
    assert await blocked_at(rows, user.id) is not None


async def test_a_delivery_clears_an_earlier_refusal(app, rows, insert_user, fake_bot_api: FakeBotAPI):
    came_back = await insert_user(messenger_blocked_at=utcnow() - timedelta(days=40))
    still_blocked = await insert_user(messenger_blocked_at=utcnow() - timedelta(days=40))
    fake_bot_api.block(still_blocked.messenger_id)

    assert (await app.state.messenger.deliver(came_back.messenger_id, "welcome back")).status == "sent"
    assert (await app.state.messenger.deliver(still_blocked.messenger_id, "hi")).status == "blocked"
    await reachability_of(app).flush()

    assert await blocked_at(rows, came_back.id) is None
    refreshed = await blocked_at(rows, still_blocked.id)
    assert refreshed is not None and refreshed > utcnow() - timedelta(minutes=1)


async def test_a_refusal_of_an_unknown_chat_changes_nothing(app, rows, insert_user, fake_bot_api: FakeBotAPI):
    user = await insert_user()
    fake_bot_api.block(123)

    assert (await app.state.messenger.deliver(123, "hi")).status == "blocked"
    await reachability_of(app).flush()

    assert await blocked_at(rows, user.id) is None


async def test_queued_answers_are_written_at_shutdown(app, rows, insert_user, fake_bot_api: FakeBotAPI):
    user = await insert_user()
    recorder = reachability_of(app)
    await recorder.stop()  # no background writer any more
    fake_bot_api.block(user.messenger_id)

    await app.state.messenger.deliver(user.messenger_id, "hi")
    assert await blocked_at(rows, user.id) is None
    await recorder.stop()  # what shutdown does

    assert await blocked_at(rows, user.id) is not None

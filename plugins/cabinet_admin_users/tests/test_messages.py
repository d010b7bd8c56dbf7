"""`POST /cabinet/admin/users/{id}/send-message`: stored, sent by the job through the
messenger client (the loopback fake Bot API), outcome recorded; a user who blocked the bot is
recorded and not retried."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select
from subsvc_cabinet_admin_users.messages import send_due
from subsvc_cabinet_admin_users.models import UserMessage

from subsvc.testing import set_env
from subsvc.testing_messenger import FakeBotAPI

BASE = "/cabinet/admin/users"


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


@pytest.fixture(autouse=True)
def _no_periodic_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    set_env(monkeypatch, {"ADMIN_USER_MESSAGE_POLL_SECONDS": 0})


async def _messages(db) -> list[UserMessage]:
    async with db.session() as session:
        return list((await session.exec(select(UserMessage).order_by(UserMessage.id))).all())


async def test_the_job_sends_it_and_records_the_outcome(admin, make_user, fake_bot_api, db, wait_for):
    user = await make_user(messenger_id=555_001)
    response = await admin.post(f"{BASE}/{user.id}/send-message", json={"text": "<b>Hello</b>"})
    assert response.json() == {"success": True, "message": "Message queued for sending"}

    async def sent() -> bool:
        return [m.status for m in await _messages(db)] == ["sent"]

    await wait_for(sent)
    (message,) = await _messages(db)
    assert (message.user_id, message.chat_id, message.attempts) == (user.id, 555_001, 1)
    assert message.message_id is not None and message.sent_at is not None
    (call,) = fake_bot_api.calls_of("sendMessage")
    assert call.params["text"] == "<b>Hello</b>" and int(call.params["chat_id"]) == 555_001


async def test_a_user_who_blocked_the_bot_is_recorded_and_not_retried(
    app, admin, make_user, fake_bot_api, db, wait_for
):
    user = await make_user(messenger_id=555_002)
    fake_bot_api.block(555_002)
    await admin.post(f"{BASE}/{user.id}/send-message", json={"text": "Hi"})

    async def blocked() -> bool:
        return [m.status for m in await _messages(db)] == ["blocked"]

    await wait_for(blocked)
    await send_due(app)  # another pass: nothing left to send
    assert len(fake_bot_api.calls_of("sendMessage")) == 1
    (message,) = await _messages(db)
    assert message.attempts == 1 and "blocked" in (message.error or "")


async def test_a_refused_message_fails_once(app, admin, make_user, fake_bot_api, db, wait_for):
    user = await make_user(messenger_id=555_003)
    fake_bot_api.fail("sendMessage", 400, "Bad Request: can't parse entities", times=1)
    await admin.post(f"{BASE}/{user.id}/send-message", json={"text": "<b>broken"})

    async def failed() -> bool:
        return [m.status for m in await _messages(db)] == ["failed"]

    await wait_for(failed)
    await send_due(app)
    assert len(fake_bot_api.calls_of("sendMessage")) == 1


async def test_an_email_only_user_is_400_and_nothing_is_stored(admin, make_user, db):
    user = await make_user(messenger_id=None, email="ann@example.com")
    response = await admin.post(f"{BASE}/{user.id}/send-message", json={"text": "Hi"})
    assert response.status_code == 400
    assert "e-mail only" in response.json()["detail"]
    assert await _messages(db) == []


@pytest.mark.parametrize("text", ["", "x" * 4097])
async def test_the_text_is_1_to_4096_characters(admin, make_user, text):
    user = await make_user()
    assert (await admin.post(f"{BASE}/{user.id}/send-message", json={"text": text})).status_code == 422

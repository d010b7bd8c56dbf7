"""Deep-link login: the cabinet requests a token, the bot confirms it, the cabinet polls."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from subsvc_cabinet_auth.models import CabinetRefreshToken, DeepLinkToken

REQUEST = "/cabinet/auth/deeplink/request"
POLL = "/cabinet/auth/deeplink/poll"
CONFIRM = "/auth/deeplink/confirm"


@pytest.fixture(autouse=True)
def bot_username(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_USERNAME", "subsvc_test_bot")


async def _request_token(anon_client) -> str:
    response = await anon_client.post(REQUEST)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["bot_username"], body["expires_in"]) == ("subsvc_test_bot", 300)
    return body["token"]


async def test_request_confirm_poll_logs_the_user_in_once(anon_client, client, insert_user, rows):
    user = await insert_user(messenger_id=8001, username="trinity")
    token = await _request_token(anon_client)

    waiting = await anon_client.post(POLL, json={"token": token})
    confirmed = await client.post(CONFIRM, json={"token": token, "messenger_id": 8001})
    confirmed_again = await client.post(CONFIRM, json={"token": token, "messenger_id": 8001})
    logged_in = await anon_client.post(POLL, json={"token": token})
    used = await anon_client.post(POLL, json={"token": token})

    assert waiting.status_code == 202
    assert waiting.json() == {"detail": "Waiting for confirmation"}
    assert confirmed.status_code == 200
    assert confirmed.json() == {"status": "confirmed", "user_id": user.id}
    assert confirmed_again.status_code == 200
    assert logged_in.status_code == 200, logged_in.text
    assert logged_in.json()["user"]["username"] == "trinity"
    assert used.status_code == 410
    assert used.json() == {"detail": "Token already consumed"}
    (session_row,) = await rows(CabinetRefreshToken)
    assert session_row.device_info == "deep_link"
    (row,) = await rows(DeepLinkToken)
    assert row.token_hash != token and len(row.token_hash) == 64  # stored hashed


async def test_unknown_and_expired_tokens_are_gone(anon_client, client, insert_user, db):
    await insert_user(messenger_id=8002)
    token = await _request_token(anon_client)
    async with db.session() as session:
        await session.exec(update(DeepLinkToken).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        await session.commit()

    unknown = await anon_client.post(POLL, json={"token": "x" * 43})
    expired = await anon_client.post(POLL, json={"token": token})
    confirm = await client.post(CONFIRM, json={"token": token, "messenger_id": 8002})

    assert unknown.status_code == 410
    assert unknown.json() == {"detail": "Token expired or not found"}
    assert expired.status_code == 410
    assert confirm.status_code == 410


async def test_the_bot_cannot_confirm_for_unknown_inactive_or_second_users(anon_client, client, insert_user):
    await insert_user(messenger_id=8003)
    await insert_user(messenger_id=8004)
    await insert_user(messenger_id=8005, status="blocked")
    token = await _request_token(anon_client)

    unknown = await client.post(CONFIRM, json={"token": token, "messenger_id": 8999})
    blocked = await client.post(CONFIRM, json={"token": token, "messenger_id": 8005})
    first = await client.post(CONFIRM, json={"token": token, "messenger_id": 8003})
    second = await client.post(CONFIRM, json={"token": token, "messenger_id": 8004})

    assert unknown.status_code == 404
    assert unknown.json() == {"detail": "User not found"}
    assert blocked.status_code == 403
    assert first.status_code == 200
    assert second.status_code == 409
    assert second.json() == {"detail": "Token already confirmed by another user"}


async def test_confirming_needs_the_api_key(anon_client):
    token = await _request_token(anon_client)

    response = await anon_client.post(CONFIRM, json={"token": token, "messenger_id": 1})

    assert response.status_code == 401


async def test_a_user_blocked_before_the_poll_is_refused(anon_client, client, insert_user, db):
    from subsvc_users.models import User

    await insert_user(messenger_id=8006)
    token = await _request_token(anon_client)
    await client.post(CONFIRM, json={"token": token, "messenger_id": 8006})
    async with db.session() as session:
        await session.exec(update(User).values(status="blocked"))
        await session.commit()

    response = await anon_client.post(POLL, json={"token": token})

    assert response.status_code == 403
    assert response.json() == {"detail": "Account is deactivated"}


async def test_without_a_bot_username_deep_links_are_unavailable(anon_client, monkeypatch, app):
    monkeypatch.delenv("BOT_USERNAME")
    settings = app.state.settings_of["cabinet_auth"]
    app.state.settings_of["cabinet_auth"] = settings.model_copy(update={"BOT_USERNAME": None})

    response = await anon_client.post(REQUEST)

    assert response.status_code == 503
    assert response.json() == {"detail": "Bot not configured"}


async def test_poll_token_bounds(anon_client):
    response = await anon_client.post(POLL, json={"token": "short"})

    assert response.status_code == 422

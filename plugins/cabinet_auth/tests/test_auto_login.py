"""POST /cabinet/auth/login/auto: one-time tokens handed out after a guest purchase."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_cabinet_auth.sessions import issue_auto_login_token

from subsvc.testing import ADMIN_MESSENGER_ID

PATH = "/cabinet/auth/login/auto"


async def test_an_auto_login_token_logs_in_once(anon_client, insert_user, app, rows):
    user = await insert_user(username="guest")
    token = issue_auto_login_token(app, user.id)

    first = await anon_client.post(PATH, json={"token": token})
    replay = await anon_client.post(PATH, json={"token": token})

    assert first.status_code == 200, first.text
    assert first.json()["user"]["id"] == user.id
    assert replay.status_code == 401
    assert replay.json() == {"detail": "This auto-login token has already been used"}
    (stored,) = await rows(CabinetRefreshToken)
    assert stored.device_info == "auto_login"


async def test_forged_expired_and_other_tokens_are_refused(anon_client, insert_user, app):
    user = await insert_user()
    now = datetime.now(UTC)
    claims = {"sub": str(user.id), "type": "auto_login", "iat": now, "exp": now + timedelta(hours=1)}
    expired = jwt.encode(
        {**claims, "exp": now - timedelta(seconds=1)}, app.state.jwt.secret, algorithm="HS256"
    )
    wrong_key = jwt.encode(claims, "x" * 48, algorithm="HS256")
    access = app.state.jwt.access_token(user.id)
    refresh = app.state.jwt.refresh_token(user.id)

    for token in (expired, wrong_key, access, refresh, "junk"):
        response = await anon_client.post(PATH, json={"token": token})
        assert response.status_code == 401, token
        assert response.json() == {"detail": "Invalid or expired auto-login token"}


async def test_inactive_users_and_administrators_cannot_auto_login(anon_client, insert_user, app):
    blocked = await insert_user(status="blocked")
    admin = await insert_user(messenger_id=ADMIN_MESSENGER_ID)

    refused = await anon_client.post(PATH, json={"token": issue_auto_login_token(app, blocked.id)})
    admin_refused = await anon_client.post(PATH, json={"token": issue_auto_login_token(app, admin.id)})
    gone = await anon_client.post(PATH, json={"token": issue_auto_login_token(app, 424242)})

    assert refused.status_code == 403
    assert refused.json() == {"detail": "Account is deactivated"}
    assert admin_refused.status_code == 403
    assert gone.status_code == 401
    assert gone.json() == {"detail": "User not found"}

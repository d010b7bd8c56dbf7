"""Forgotten passwords: the mailed link, the new password, what stops working."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import update
from subsvc_cabinet_email.models import EmailToken

from subsvc.db import utcnow

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a brand new password"
FORGOT = "/cabinet/auth/password/forgot"
RESET = "/cabinet/auth/password/reset"
LOGIN = "/cabinet/auth/email/login"
SAME_ANSWER = {"message": "If the email exists, a password reset link has been sent"}


async def _account(make_user, hash_password, **fields):
    fields.setdefault("email", "kate@example.com")
    fields.setdefault("email_verified", True)
    return await make_user(
        password_hash=await hash_password(PASSWORD), language="en", first_name="Kate", **fields
    )


async def test_reset_sets_the_password_and_logs_every_session_out(
    anon_client, make_user, hash_password, smtp_sink, rows
):
    await _account(make_user, hash_password)
    session = (await anon_client.post(LOGIN, json={"email": "kate@example.com", "password": PASSWORD})).json()

    forgot = await anon_client.post(FORGOT, json={"email": "KATE@example.com"})
    assert forgot.status_code == 200 and forgot.json() == SAME_ANSWER
    (message,) = await smtp_sink.wait(1)
    assert message["To"] == "kate@example.com" and message["Subject"] == "Reset your password"
    assert "Hello Kate" in smtp_sink.text(message)
    token = smtp_sink.token("reset-password")

    reset = await anon_client.post(RESET, json={"token": token, "password": NEW_PASSWORD})
    assert reset.status_code == 200, reset.text
    assert reset.json() == {"message": "Password reset successfully"}
    assert await rows(EmailToken) == []

    old = await anon_client.post(LOGIN, json={"email": "kate@example.com", "password": PASSWORD})
    assert old.status_code == 401
    new = await anon_client.post(LOGIN, json={"email": "kate@example.com", "password": NEW_PASSWORD})
    assert new.status_code == 200
    # the session made with the old password is gone
    refresh = await anon_client.post(
        "/cabinet/auth/refresh", json={"refresh_token": session["refresh_token"]}
    )
    assert refresh.status_code == 401

    reused = await anon_client.post(RESET, json={"token": token, "password": "yet another password"})
    assert reused.status_code == 400
    assert reused.json() == {"detail": "Invalid reset token"}


async def test_expired_and_unknown_reset_links(anon_client, make_user, hash_password, smtp_sink, db):
    await _account(make_user, hash_password)
    await anon_client.post(FORGOT, json={"email": "kate@example.com"})
    await smtp_sink.wait(1)
    async with db.session() as session:
        await session.exec(update(EmailToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        await session.commit()
    expired = await anon_client.post(
        RESET, json={"token": smtp_sink.token("reset-password"), "password": NEW_PASSWORD}
    )
    assert expired.status_code == 400
    assert expired.json() == {"detail": "Reset token has expired"}
    unknown = await anon_client.post(RESET, json={"token": "f" * 64, "password": NEW_PASSWORD})
    assert unknown.status_code == 400
    assert unknown.json() == {"detail": "Invalid reset token"}
    login = await anon_client.post(LOGIN, json={"email": "kate@example.com", "password": PASSWORD})
    assert login.status_code == 200  # the password did not change


async def test_the_answer_does_not_tell_whether_an_account_exists(
    anon_client, make_user, hash_password, smtp_sink, rows
):
    await _account(make_user, hash_password, email="unverified@example.com", email_verified=False)
    await _account(make_user, hash_password, email="blocked@example.com", status="blocked")
    for address in ("nobody@example.com", "unverified@example.com", "blocked@example.com"):
        response = await anon_client.post(FORGOT, json={"email": address})
        assert response.status_code == 200 and response.json() == SAME_ANSWER
    await asyncio.sleep(0.1)
    assert smtp_sink.messages == [] and await rows(EmailToken) == []


async def test_new_password_bounds(anon_client):
    for body in (
        {"token": "t", "password": "short"},
        {"token": "t" * 2049, "password": NEW_PASSWORD},
        {"token": "t"},
    ):
        assert (await anon_client.post(RESET, json=body)).status_code == 422


async def test_forgot_is_rate_limited(anon_client):
    for _ in range(3):
        assert (await anon_client.post(FORGOT, json={"email": "a@example.com"})).status_code == 200
    limited = await anon_client.post(FORGOT, json={"email": "a@example.com"})
    assert limited.status_code == 429 and "Retry-After" in limited.headers

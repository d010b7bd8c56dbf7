"""However many clients ask, one address gets at most a few mails an hour."""

from __future__ import annotations

import pytest
from subsvc_cabinet_email.models import EmailToken

PASSWORD = "correct horse battery"
REGISTER = "/cabinet/auth/email/register/standalone"


@pytest.fixture
def subsvc_settings_overrides():
    # lift the per-client limits so that only the per-address one is left to hit
    return {"RATE_LIMITS": ["email_register=100/minute", "password_forgot=100/minute"]}


async def test_registrations_to_one_address_are_limited(anon_client, smtp_sink, rows):
    for _ in range(5):
        response = await anon_client.post(
            REGISTER, json={"email": "victim@example.com", "password": PASSWORD}
        )
        assert response.status_code == 200
    limited = await anon_client.post(REGISTER, json={"email": "Victim@example.com", "password": PASSWORD})
    assert limited.status_code == 429
    assert limited.json() == {"detail": "Too many requests"}
    assert int(limited.headers["Retry-After"]) > 60
    assert len(smtp_sink.messages) == 5 and len(await rows(EmailToken)) == 5
    other = await anon_client.post(REGISTER, json={"email": "other@example.com", "password": PASSWORD})
    assert other.status_code == 200


async def test_reset_mail_is_limited_without_telling(anon_client, make_user, hash_password, smtp_sink, rows):
    await make_user(
        email="kate@example.com", email_verified=True, password_hash=await hash_password(PASSWORD)
    )
    answers = [
        await anon_client.post("/cabinet/auth/password/forgot", json={"email": "kate@example.com"})
        for _ in range(7)
    ]
    assert {answer.status_code for answer in answers} == {200}
    assert len({answer.text for answer in answers}) == 1
    await smtp_sink.wait(5)
    assert len(await rows(EmailToken)) == 5

"""When mail cannot leave: a clear answer, and nothing half made."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_cabinet_email.models import EmailToken
from subsvc_users.models import User

PASSWORD = "correct horse battery"
SEND_FAILED = {"detail": "Failed to send email. Please try again later."}
NOT_CONFIGURED = {"detail": "Email service is not configured"}


@pytest.fixture(params=["server down", "server refuses", "wrong smtp password"])
def broken_smtp(request, configure, smtp_sink, closed_port):
    """Each way the SMTP side can fail."""
    if request.param == "server down":
        configure(SMTP_PORT=closed_port)
    elif request.param == "server refuses":
        smtp_sink.refuse = "554 5.7.1 Message rejected"
    else:
        configure(SMTP_PASSWORD="wrong")
    return request.param


async def test_standalone_registration(anon_client, broken_smtp, smtp_sink, rows):
    response = await anon_client.post(
        "/cabinet/auth/email/register/standalone", json={"email": "a@example.com", "password": PASSWORD}
    )
    assert response.status_code == 503
    assert response.json() == SEND_FAILED
    assert await rows(User) == [] and await rows(EmailToken) == []
    assert smtp_sink.messages == []


async def test_link_and_resend(anon_client, broken_smtp, make_user, bearer, fetch_user, rows):
    user = await make_user()
    response = await anon_client.post(
        "/cabinet/auth/email/register",
        json={"email": "a@example.com", "password": PASSWORD},
        headers=bearer(user),
    )
    assert response.status_code == 503 and response.json() == SEND_FAILED
    unchanged = await fetch_user(user.id)
    assert unchanged.email is None and unchanged.password_hash is None
    assert await rows(EmailToken) == []

    unverified = await make_user(email="u@example.com", email_verified=False)
    resend = await anon_client.post("/cabinet/auth/email/resend", headers=bearer(unverified))
    assert resend.status_code == 503 and await rows(EmailToken) == []


async def test_change(anon_client, broken_smtp, make_user, bearer, fetch_user, rows):
    user = await make_user(email="old@example.com", email_verified=True)
    headers = bearer(user)
    response = await anon_client.post(
        "/cabinet/auth/email/change", json={"new_email": "n@example.com"}, headers=headers
    )
    assert response.status_code == 503 and response.json() == SEND_FAILED
    assert await rows(EmailToken) == []
    status = await anon_client.get("/cabinet/auth/email/change/status", headers=headers)
    assert status.json()["pending"] is False
    assert (await fetch_user(user.id)).email == "old@example.com"


async def test_a_failed_change_request_leaves_the_earlier_one_pending(
    anon_client, make_user, bearer, smtp_sink, configure, closed_port, fetch_user
):
    user = await make_user(email="old@example.com", email_verified=True)
    headers = bearer(user)
    await anon_client.post(
        "/cabinet/auth/email/change", json={"new_email": "first@example.com"}, headers=headers
    )
    code = smtp_sink.code()
    configure(SMTP_PORT=closed_port)
    failed = await anon_client.post(
        "/cabinet/auth/email/change", json={"new_email": "x@example.com"}, headers=headers
    )
    assert failed.status_code == 503
    status = (await anon_client.get("/cabinet/auth/email/change/status", headers=headers)).json()
    assert status["new_email"] == "first@example.com"
    done = await anon_client.post("/cabinet/auth/email/change/verify", json={"code": code}, headers=headers)
    assert done.status_code == 200
    assert (await fetch_user(user.id)).email == "first@example.com"


async def test_password_forgot_answers_alike_and_withdraws_the_link(
    anon_client, broken_smtp, make_user, hash_password, rows
):
    await make_user(
        email="kate@example.com", email_verified=True, password_hash=await hash_password(PASSWORD)
    )
    response = await anon_client.post("/cabinet/auth/password/forgot", json={"email": "kate@example.com"})
    assert response.status_code == 200
    for _ in range(200):  # the mail leaves in the background; its failure removes the link
        if await rows(EmailToken) == []:
            break
        await asyncio.sleep(0.025)
    assert await rows(EmailToken) == []


async def test_unconfigured_mail_is_503_before_anything(
    anon_client, configure, make_user, bearer, smtp_sink, rows
):
    configure(SMTP_HOST=None)
    user = await make_user(email="old@example.com", email_verified=True)
    calls = [
        ("/cabinet/auth/email/register/standalone", {"email": "a@example.com", "password": PASSWORD}, None),
        (
            "/cabinet/auth/email/register",
            {"email": "b@example.com", "password": PASSWORD},
            bearer(await make_user()),
        ),
        ("/cabinet/auth/email/change", {"new_email": "c@example.com"}, bearer(user)),
        ("/cabinet/auth/password/forgot", {"email": "old@example.com"}, None),
    ]
    for path, body, headers in calls:
        response = await anon_client.post(path, json=body, headers=headers)
        assert response.status_code == 503, path
        assert response.json() == NOT_CONFIGURED
    configure(SMTP_HOST="127.0.0.1", CABINET_URL=None)  # links need the cabinet's address
    response = await anon_client.post(
        "/cabinet/auth/email/register/standalone", json={"email": "a@example.com", "password": PASSWORD}
    )
    assert response.status_code == 503 and response.json() == NOT_CONFIGURED
    assert await rows(EmailToken) == [] and smtp_sink.messages == []

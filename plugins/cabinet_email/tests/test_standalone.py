"""Standalone registration: a pending account, the mailed link, verification that logs in."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import update
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_cabinet_email.models import EmailToken
from subsvc_users.models import User

from subsvc.db import utcnow

PASSWORD = "correct horse battery"
REGISTER = "/cabinet/auth/email/register/standalone"
VERIFY = "/cabinet/auth/email/verify"
LOGIN = "/cabinet/auth/email/login"


async def test_register_mails_a_link_that_creates_the_account_and_logs_in(anon_client, smtp_sink, rows, me):
    response = await anon_client.post(
        REGISTER,
        json={
            "email": "Anna.Smith@Example.COM",
            "password": PASSWORD,
            "first_name": "Anna",
            "language": "en",
        },
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "message": "Verification email sent. Please check your inbox.",
        "email": "anna.smith@example.com",
        "requires_verification": True,
    }
    # nothing is an account before the link comes back
    assert await rows(User) == []
    (pending,) = await rows(EmailToken)
    assert pending.user_id is None and pending.email == "anna.smith@example.com"
    assert pending.password_hash.startswith("$argon2id$")
    assert PASSWORD not in pending.password_hash

    message = smtp_sink.last()
    assert message["To"] == "anna.smith@example.com"
    assert message["Subject"] == "Confirm your e-mail address"
    assert "Subscription Service" in message["From"] and "noreply@example.com" in message["From"]
    assert smtp_sink.envelopes[-1].rcpt_tos == ["anna.smith@example.com"]
    token = smtp_sink.token("verify-email")
    assert pending.token_hash != token  # stored hashed
    assert f"verify-email?token={token}" in smtp_sink.html(message)
    assert "Hello Anna" in smtp_sink.text(message)

    # logging in before verifying is refused as unverified (the right password)
    early = await anon_client.post(LOGIN, json={"email": "anna.smith@example.com", "password": PASSWORD})
    assert early.status_code == 403
    assert early.json() == {"detail": "Please verify your email first"}

    verified = await anon_client.post(VERIFY, json={"token": token})
    assert verified.status_code == 200, verified.text
    body = verified.json()
    assert body["token_type"] == "bearer" and body["expires_in"] == 15 * 60
    assert body["user"]["email"] == "anna.smith@example.com"
    assert body["user"]["email_verified"] is True
    assert body["user"]["auth_type"] == "email"
    assert body["user"]["first_name"] == "Anna" and body["user"]["language"] == "en"
    assert (await me(body["access_token"]))["id"] == body["user"]["id"]

    (user,) = await rows(User)
    assert user.email == "anna.smith@example.com"
    assert user.email_verified and user.email_verified_at is not None
    assert user.email_verification_source == "cabinet"
    assert user.password_hash == pending.password_hash
    assert user.cabinet_last_login is not None
    assert user.referral_code  # made by the users plugin's create_user
    assert await rows(EmailToken) == []
    (session,) = await rows(CabinetRefreshToken)
    assert session.user_id == user.id and session.device_info == "email"

    # the link works once
    again = await anon_client.post(VERIFY, json={"token": token})
    assert again.status_code == 400
    assert again.json() == {"detail": "Invalid verification token"}

    # and the account logs in with its password, any case of the address
    login = await anon_client.post(LOGIN, json={"email": "ANNA.smith@example.com", "password": PASSWORD})
    assert login.status_code == 200, login.text
    assert login.json()["user"]["id"] == user.id


async def test_registering_again_mails_a_new_link_and_either_link_makes_one_account(
    anon_client, smtp_sink, rows
):
    first = await anon_client.post(REGISTER, json={"email": "twice@example.com", "password": PASSWORD})
    second = await anon_client.post(REGISTER, json={"email": "twice@example.com", "password": PASSWORD + "2"})
    assert first.status_code == second.status_code == 200
    first_token = smtp_sink.token("verify-email", smtp_sink.messages[0])
    second_token = smtp_sink.token("verify-email", smtp_sink.messages[1])
    assert first_token != second_token

    assert (await anon_client.post(VERIFY, json={"token": second_token})).status_code == 200
    # using one consumed its sibling
    stale = await anon_client.post(VERIFY, json={"token": first_token})
    assert stale.status_code == 400
    assert len(await rows(User)) == 1
    assert await rows(EmailToken) == []
    # the password of the link used is the account's
    login = await anon_client.post(LOGIN, json={"email": "twice@example.com", "password": PASSWORD + "2"})
    assert login.status_code == 200


async def test_a_registered_address_is_refused(anon_client, make_user, smtp_sink, rows):
    await make_user(email="taken@example.com", email_verified=True)
    response = await anon_client.post(REGISTER, json={"email": "TAKEN@example.com", "password": PASSWORD})
    assert response.status_code == 400
    assert response.json() == {"detail": "This email is already registered"}
    assert smtp_sink.messages == []
    assert await rows(EmailToken) == []


async def test_expired_and_unknown_links(anon_client, smtp_sink, db, rows):
    await anon_client.post(REGISTER, json={"email": "late@example.com", "password": PASSWORD})
    token = smtp_sink.token("verify-email")
    async with db.session() as session:
        await session.exec(update(EmailToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        await session.commit()

    expired = await anon_client.post(VERIFY, json={"token": token})
    assert expired.status_code == 400
    assert expired.json() == {"detail": "Verification token has expired"}
    assert await rows(User) == []

    unknown = await anon_client.post(VERIFY, json={"token": "0" * 64})
    assert unknown.status_code == 400
    assert unknown.json() == {"detail": "Invalid verification token"}

    # an expired registration does not hold the address: registering again works
    again = await anon_client.post(REGISTER, json={"email": "late@example.com", "password": PASSWORD})
    assert again.status_code == 200
    assert (
        await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    ).status_code == 200


async def test_the_address_taken_meanwhile_refuses_the_link(anon_client, smtp_sink, make_user, rows):
    await anon_client.post(REGISTER, json={"email": "race@example.com", "password": PASSWORD})
    await make_user(email="race@example.com", email_verified=True)
    response = await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert response.status_code == 400
    assert response.json() == {"detail": "This email is already registered"}
    assert len(await rows(User)) == 1


async def test_referral_code_sets_the_referrer(anon_client, smtp_sink, make_user, rows):
    inviter = await make_user(referral_code="inviteme")
    await anon_client.post(
        REGISTER, json={"email": "friend@example.com", "password": PASSWORD, "referral_code": "inviteme"}
    )
    await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    (friend,) = await rows(User, email="friend@example.com")
    assert friend.referred_by_id == inviter.id


async def test_russian_accounts_get_russian_mail(anon_client, smtp_sink):
    await anon_client.post(
        REGISTER, json={"email": "ivan@example.com", "password": PASSWORD, "language": "ru"}
    )
    message = smtp_sink.last()
    assert message["Subject"] == "Подтвердите адрес электронной почты"
    assert "Здравствуйте, ivan!" in smtp_sink.text(message)


async def test_disposable_addresses_are_refused(anon_client, smtp_sink, rows):
    disposable = await anon_client.post(REGISTER, json={"email": "x@mail.yopmail.com", "password": PASSWORD})
    assert disposable.status_code == 400
    assert disposable.json() == {"detail": "Disposable email addresses are not allowed"}
    assert smtp_sink.messages == [] and await rows(EmailToken) == []


async def test_input_bounds(anon_client):
    cases = [
        {"email": "not-an-address", "password": PASSWORD},
        {"email": "a@example.com", "password": "short"},
        {"email": "a@example.com", "password": "x" * 129},
        {"email": "a@example.com", "password": PASSWORD, "language": "rus"},
        {"email": "a@example.com", "password": PASSWORD, "first_name": "x" * 65},
        {"email": "a@example.com", "password": PASSWORD, "referral_code": "bad code"},
        {"password": PASSWORD},
    ]
    for body in cases:
        response = await anon_client.post(REGISTER, json=body)
        assert response.status_code == 422, body
        assert response.json()["detail"][0]["loc"][0] == "body"


async def test_without_verification_the_account_is_made_at_once(anon_client, configure, smtp_sink, rows):
    configure(CABINET_EMAIL_VERIFICATION_ENABLED=False)
    response = await anon_client.post(REGISTER, json={"email": "quick@example.com", "password": PASSWORD})
    assert response.status_code == 200
    assert response.json()["requires_verification"] is False
    assert smtp_sink.messages == []
    (user,) = await rows(User)
    assert user.email_verified and user.auth_type == "email"
    assert user.email_verification_source == "cabinet_auto"  # no proof of ownership
    login = await anon_client.post(LOGIN, json={"email": "quick@example.com", "password": PASSWORD})
    assert login.status_code == 200


async def test_concurrent_uses_of_one_link_make_one_account(anon_client, smtp_sink, rows):
    await anon_client.post(REGISTER, json={"email": "both@example.com", "password": PASSWORD})
    token = smtp_sink.token("verify-email")
    answers = await asyncio.gather(*(anon_client.post(VERIFY, json={"token": token}) for _ in range(3)))
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200, 400, 400], [answer.text for answer in answers]
    assert len(await rows(User)) == 1


async def test_names_are_escaped_in_the_html_part(anon_client, smtp_sink):
    await anon_client.post(
        REGISTER,
        json={"email": "eve@example.com", "password": PASSWORD, "first_name": "<b>Eve</b>", "language": "en"},
    )
    message = smtp_sink.last()
    assert "Hello <b>Eve</b>," in smtp_sink.text(message)
    assert "Hello &lt;b&gt;Eve&lt;/b&gt;," in smtp_sink.html(message)
    assert "<b>Eve</b>" not in smtp_sink.html(message)

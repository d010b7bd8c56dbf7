"""Linking an e-mail and a password to a logged-in (messenger) account, and resending its link."""

from __future__ import annotations

from subsvc_cabinet_email.models import EmailToken
from subsvc_users.models import User

PASSWORD = "correct horse battery"
NO_MERGE = {"merge_required": False, "merge_verification": None, "merge_token": None}
REGISTER = "/cabinet/auth/email/register"
RESEND = "/cabinet/auth/email/resend"
VERIFY = "/cabinet/auth/email/verify"
LOGIN = "/cabinet/auth/email/login"


async def test_link_changes_the_account_only_when_the_link_comes_back(
    anon_client, make_user, bearer, smtp_sink, fetch_user, rows
):
    user = await make_user(first_name="Boris", language="en")
    response = await anon_client.post(
        REGISTER, json={"email": "Boris@Example.com", "password": PASSWORD}, headers=bearer(user)
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "message": "Verification email sent",
        "email": "boris@example.com",
        **NO_MERGE,
    }
    unchanged = await fetch_user(user.id)
    assert unchanged.email is None and unchanged.password_hash is None
    (pending,) = await rows(EmailToken)
    assert pending.user_id == user.id

    assert smtp_sink.last()["To"] == "boris@example.com"
    verified = await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert verified.status_code == 200, verified.text
    assert verified.json()["user"]["id"] == user.id
    assert verified.json()["user"]["messenger_id"] == user.messenger_id
    linked = await fetch_user(user.id)
    assert linked.email == "boris@example.com" and linked.email_verified
    assert linked.email_verification_source == "cabinet"
    assert linked.auth_type == "messenger"  # the account keeps its first way in
    assert len(await rows(User)) == 1

    login = await anon_client.post(LOGIN, json={"email": "boris@example.com", "password": PASSWORD})
    assert login.status_code == 200 and login.json()["user"]["id"] == user.id

    again = await anon_client.post(
        REGISTER, json={"email": "other@example.com", "password": PASSWORD}, headers=bearer(user)
    )
    assert again.status_code == 400
    assert again.json() == {"detail": "You already have a verified email"}


async def test_link_refusals(anon_client, make_user, bearer, smtp_sink, app, rows):
    # another account holds the address unverified: its inbox proves nothing about that account
    owner = await make_user(email="owned@example.com", email_verified=False)
    user = await make_user(email="mine@example.com", email_verified=False)
    headers = bearer(user)

    taken = await anon_client.post(
        REGISTER, json={"email": "OWNED@example.com", "password": PASSWORD}, headers=headers
    )
    assert taken.status_code == 409
    assert taken.json() == {"detail": "This email is already registered to another account"}

    same = await anon_client.post(
        REGISTER, json={"email": "mine@example.com", "password": PASSWORD}, headers=headers
    )
    assert same.status_code == 400
    assert same.json() == {"detail": "This email is already linked to your account"}

    disposable = await anon_client.post(
        REGISTER, json={"email": "me@mailinator.com", "password": PASSWORD}, headers=headers
    )
    assert disposable.status_code == 400

    anonymous = await anon_client.post(REGISTER, json={"email": "x@example.com", "password": PASSWORD})
    assert anonymous.status_code == 401
    assert smtp_sink.messages == [] and await rows(EmailToken) == []
    assert owner.email == "owned@example.com"


async def test_resend_mails_another_working_link(anon_client, make_user, bearer, smtp_sink, fetch_user):
    user = await make_user()
    headers = bearer(user)
    await anon_client.post(
        REGISTER, json={"email": "late@example.com", "password": PASSWORD}, headers=headers
    )
    first = smtp_sink.token("verify-email")

    resent = await anon_client.post(RESEND, headers=headers)
    assert resent.status_code == 200, resent.text
    assert resent.json() == {"message": "Verification email sent"}
    assert len(smtp_sink.messages) == 2 and smtp_sink.last()["To"] == "late@example.com"
    second = smtp_sink.token("verify-email")
    assert second != first

    assert (await anon_client.post(VERIFY, json={"token": second})).status_code == 200
    linked = await fetch_user(user.id)
    assert linked.email == "late@example.com" and linked.password_hash  # the password came along
    assert (await anon_client.post(VERIFY, json={"token": first})).status_code == 400

    done = await anon_client.post(RESEND, headers=headers)
    assert done.status_code == 400
    assert done.json() == {"detail": "Email is already verified"}


async def test_resend_for_an_unverified_address_on_the_account(
    anon_client, make_user, bearer, smtp_sink, fetch_user
):
    user = await make_user(email="legacy@example.com", email_verified=False)
    response = await anon_client.post(RESEND, headers=bearer(user))
    assert response.status_code == 200
    assert smtp_sink.last()["To"] == "legacy@example.com"
    await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert (await fetch_user(user.id)).email_verified


async def test_resend_refusals(anon_client, make_user, bearer, configure, smtp_sink):
    nothing = await anon_client.post(RESEND, headers=bearer(await make_user()))
    assert nothing.status_code == 400
    assert nothing.json() == {"detail": "No email address to verify"}

    unverified = await make_user(email="u@example.com", email_verified=False)
    configure(CABINET_EMAIL_VERIFICATION_ENABLED=False)
    disabled = await anon_client.post(RESEND, headers=bearer(unverified))
    assert disabled.status_code == 400
    assert disabled.json() == {"detail": "Email verification is disabled"}

    configure(CABINET_EMAIL_VERIFICATION_ENABLED=True, SMTP_HOST=None)
    unconfigured = await anon_client.post(RESEND, headers=bearer(unverified))
    assert unconfigured.status_code == 503
    assert unconfigured.json() == {"detail": "Email service is not configured"}
    assert smtp_sink.messages == []


async def test_link_of_a_blocked_account_is_refused(
    anon_client, make_user, bearer, smtp_sink, db, fetch_user
):
    user = await make_user()
    await anon_client.post(
        REGISTER, json={"email": "b@example.com", "password": PASSWORD}, headers=bearer(user)
    )
    async with db.session() as session:
        row = await session.get(User, user.id)
        row.status = "blocked"
        await session.commit()
    response = await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert response.status_code == 403
    assert response.json() == {"detail": "User account is not active"}
    assert (await fetch_user(user.id)).email is None


async def test_without_verification_the_link_is_immediate(
    anon_client, make_user, bearer, configure, fetch_user
):
    configure(CABINET_EMAIL_VERIFICATION_ENABLED=False)
    user = await make_user()
    response = await anon_client.post(
        REGISTER, json={"email": "now@example.com", "password": PASSWORD}, headers=bearer(user)
    )
    assert response.json() == {
        "message": "Email linked successfully",
        "email": "now@example.com",
        **NO_MERGE,
    }
    linked = await fetch_user(user.id)
    assert linked.email == "now@example.com" and linked.email_verified
    assert linked.email_verification_source == "cabinet_auto"

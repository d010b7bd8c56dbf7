"""Changing the address: the code mailed to the new address, its status, cancel, attempts."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import update
from subsvc_cabinet_email.models import EmailToken

from subsvc.db import utcnow

PASSWORD = "correct horse battery"
CHANGE = "/cabinet/auth/email/change"
STATUS = "/cabinet/auth/email/change/status"
CONFIRM = "/cabinet/auth/email/change/verify"
CANCEL = "/cabinet/auth/email/change/cancel"
VERIFY = "/cabinet/auth/email/verify"
LOGIN = "/cabinet/auth/email/login"


async def _verified(make_user, hash_password, email="old@example.com"):
    return await make_user(
        email=email, email_verified=True, password_hash=await hash_password(PASSWORD), language="en"
    )


async def test_change_with_the_mailed_code(
    anon_client, make_user, hash_password, bearer, smtp_sink, fetch_user, rows
):
    user = await _verified(make_user, hash_password)
    headers = bearer(user)
    assert (await anon_client.get(STATUS, headers=headers)).json() == {
        "pending": False,
        "new_email": None,
        "expires_at": None,
    }

    response = await anon_client.post(CHANGE, json={"new_email": "New@Example.com"}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "message": "Verification code sent to new email",
        "new_email": "new@example.com",
        "expires_in_minutes": 15,
    }
    message = smtp_sink.last()
    assert message["To"] == "new@example.com"
    code = smtp_sink.code()
    assert code in message["Subject"]
    (row,) = await rows(EmailToken)
    assert code not in row.token_hash and len(row.token_hash) == 64

    status = (await anon_client.get(STATUS, headers=headers)).json()
    assert status["pending"] is True and status["new_email"] == "new@example.com"
    expires = datetime.fromisoformat(status["expires_at"])
    assert timedelta(minutes=14) < expires - utcnow() <= timedelta(minutes=15)
    assert (await fetch_user(user.id)).email == "old@example.com"  # not before the code

    done = await anon_client.post(CONFIRM, json={"code": code}, headers=headers)
    assert done.status_code == 200, done.text
    assert done.json() == {"message": "Email changed successfully", "new_email": "new@example.com"}
    changed = await fetch_user(user.id)
    assert changed.email == "new@example.com" and changed.email_verified
    assert changed.email_verification_source == "cabinet"
    assert (await anon_client.get(STATUS, headers=headers)).json()["pending"] is False

    reused = await anon_client.post(CONFIRM, json={"code": code}, headers=headers)
    assert reused.status_code == 400
    assert reused.json() == {"detail": "No pending email change"}
    assert (
        await anon_client.post(LOGIN, json={"email": "new@example.com", "password": PASSWORD})
    ).status_code == 200
    assert (
        await anon_client.post(LOGIN, json={"email": "old@example.com", "password": PASSWORD})
    ).status_code == 401


async def test_wrong_codes_count_and_burn_the_change(
    anon_client, make_user, hash_password, bearer, smtp_sink, rows
):
    user = await _verified(make_user, hash_password)
    headers = bearer(user)
    await anon_client.post(CHANGE, json={"new_email": "new@example.com"}, headers=headers)
    code = smtp_sink.code()
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for attempt in range(1, 5):
        response = await anon_client.post(CONFIRM, json={"code": wrong}, headers=headers)
        assert response.status_code == 400
        assert response.json() == {"detail": "Invalid verification code"}
        (row,) = await rows(EmailToken)
        assert row.attempts == attempt
    fifth = await anon_client.post(CONFIRM, json={"code": wrong}, headers=headers)
    assert fifth.status_code == 429
    assert fifth.json() == {"detail": "Too many invalid attempts. Please request a new code."}
    assert await rows(EmailToken) == []
    # even the right code is too late now
    late = await anon_client.post(CONFIRM, json={"code": code}, headers=headers)
    assert late.status_code in (400, 429)


async def test_expired_code(anon_client, make_user, hash_password, bearer, smtp_sink, db, fetch_user):
    user = await _verified(make_user, hash_password)
    headers = bearer(user)
    await anon_client.post(CHANGE, json={"new_email": "new@example.com"}, headers=headers)
    async with db.session() as session:
        await session.exec(update(EmailToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        await session.commit()
    response = await anon_client.post(CONFIRM, json={"code": smtp_sink.code()}, headers=headers)
    assert response.status_code == 400
    assert response.json() == {"detail": "Verification code has expired"}
    assert (await fetch_user(user.id)).email == "old@example.com"
    assert (await anon_client.get(STATUS, headers=headers)).json()["pending"] is False


async def test_a_new_request_replaces_the_pending_one_and_cancel_drops_it(
    anon_client, make_user, hash_password, bearer, smtp_sink, fetch_user
):
    user = await _verified(make_user, hash_password)
    headers = bearer(user)
    await anon_client.post(CHANGE, json={"new_email": "first@example.com"}, headers=headers)
    first_code = smtp_sink.code()
    await anon_client.post(CHANGE, json={"new_email": "second@example.com"}, headers=headers)
    second_code = smtp_sink.code()
    assert (await anon_client.get(STATUS, headers=headers)).json()["new_email"] == "second@example.com"
    if first_code != second_code:
        stale = await anon_client.post(CONFIRM, json={"code": first_code}, headers=headers)
        assert stale.status_code == 400

    cancelled = await anon_client.post(CANCEL, headers=headers)
    assert cancelled.status_code == 200
    assert cancelled.json() == {"message": "Email change cancelled"}
    assert (await anon_client.get(STATUS, headers=headers)).json()["pending"] is False
    after = await anon_client.post(CONFIRM, json={"code": second_code}, headers=headers)
    assert after.status_code == 400
    again = await anon_client.post(CANCEL, headers=headers)
    assert again.status_code == 400
    assert again.json() == {"detail": "No pending email change"}
    assert (await fetch_user(user.id)).email == "old@example.com"


async def test_change_refusals(anon_client, make_user, hash_password, bearer, smtp_sink, app):
    user = await _verified(make_user, hash_password)
    await _verified(make_user, hash_password, email="taken@example.com")
    headers = bearer(user)
    cases = [
        ("OLD@example.com", 400, "New email is the same as current email"),
        ("taken@example.com", 400, "This email is already registered"),
        ("me@yopmail.com", 400, "Disposable email addresses are not allowed"),
    ]
    for address, status, detail in cases:
        response = await anon_client.post(CHANGE, json={"new_email": address}, headers=headers)
        assert (response.status_code, response.json()) == (status, {"detail": detail}), address

    no_email = await anon_client.post(
        CHANGE, json={"new_email": "a@example.com"}, headers=bearer(await make_user())
    )
    assert no_email.status_code == 400
    assert no_email.json() == {"detail": "No email address to change"}
    assert smtp_sink.messages == []
    assert (await anon_client.post(CHANGE, json={"new_email": "a@example.com"})).status_code == 401
    bad_code = await anon_client.post(CONFIRM, json={"code": "12345a"}, headers=headers)
    assert bad_code.status_code == 422


async def test_the_address_taken_meanwhile(
    anon_client, make_user, hash_password, bearer, smtp_sink, fetch_user
):
    user = await _verified(make_user, hash_password)
    headers = bearer(user)
    await anon_client.post(CHANGE, json={"new_email": "contested@example.com"}, headers=headers)
    await _verified(make_user, hash_password, email="contested@example.com")
    response = await anon_client.post(CONFIRM, json={"code": smtp_sink.code()}, headers=headers)
    assert response.status_code == 400
    assert response.json() == {"detail": "This email is already registered"}
    assert (await fetch_user(user.id)).email == "old@example.com"


async def test_an_unverified_address_is_replaced_through_a_link(
    anon_client, make_user, hash_password, bearer, smtp_sink, fetch_user
):
    user = await make_user(
        email="typo@exmaple.com", email_verified=False, password_hash=await hash_password(PASSWORD)
    )
    headers = bearer(user)
    response = await anon_client.post(CHANGE, json={"new_email": "right@example.com"}, headers=headers)
    assert response.status_code == 200
    assert response.json() == {
        "message": "Verification email sent to the new address",
        "new_email": "right@example.com",
        "expires_in_minutes": 24 * 60,
    }
    assert smtp_sink.last()["To"] == "right@example.com"
    verified = await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert verified.status_code == 200
    changed = await fetch_user(user.id)
    assert changed.email == "right@example.com" and changed.email_verified
    assert changed.password_hash == user.password_hash

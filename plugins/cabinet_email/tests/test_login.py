"""Password login: right and wrong passwords, unverified and inactive accounts, the rate limit."""

from __future__ import annotations

from argon2 import PasswordHasher
from subsvc_cabinet_auth.models import CabinetRefreshToken

PASSWORD = "correct horse battery"
LOGIN = "/cabinet/auth/email/login"


async def test_login_issues_a_session(anon_client, make_user, hash_password, rows, fetch_user, me):
    user = await make_user(
        email="kate@example.com", email_verified=True, password_hash=await hash_password(PASSWORD)
    )
    response = await anon_client.post(LOGIN, json={"email": " Kate@Example.com ", "password": PASSWORD})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) >= {
        "access_token",
        "refresh_token",
        "token_type",
        "expires_in",
        "user",
        "campaign_bonus",
    }
    assert body["user"]["id"] == user.id and body["user"]["email"] == "kate@example.com"
    assert (await me(body["access_token"]))["email"] == "kate@example.com"
    (stored,) = await rows(CabinetRefreshToken)
    assert stored.user_id == user.id and stored.device_info == "email"
    assert (await fetch_user(user.id)).cabinet_last_login is not None

    refreshed = await anon_client.post("/cabinet/auth/refresh", json={"refresh_token": body["refresh_token"]})
    assert refreshed.status_code == 200


async def test_wrong_password_and_unknown_address_answer_alike(anon_client, make_user, hash_password, rows):
    await make_user(
        email="kate@example.com", email_verified=True, password_hash=await hash_password(PASSWORD)
    )
    wrong = await anon_client.post(LOGIN, json={"email": "kate@example.com", "password": "not the password"})
    unknown = await anon_client.post(LOGIN, json={"email": "nobody@example.com", "password": PASSWORD})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"detail": "Invalid email or password"}
    assert await rows(CabinetRefreshToken) == []


async def test_inactive_accounts_answer_like_a_wrong_password(anon_client, make_user, hash_password):
    for status in ("blocked", "deleted"):
        await make_user(
            email=f"{status}@example.com",
            email_verified=True,
            status=status,
            password_hash=await hash_password(PASSWORD),
        )
        response = await anon_client.post(
            LOGIN, json={"email": f"{status}@example.com", "password": PASSWORD}
        )
        assert response.status_code == 401
        assert response.json() == {"detail": "Invalid email or password"}


async def test_account_without_password(anon_client, make_user):
    await make_user(email="oauth@example.com", email_verified=True)
    response = await anon_client.post(LOGIN, json={"email": "oauth@example.com", "password": PASSWORD})
    assert response.status_code == 401
    assert response.json() == {"detail": "Password login not configured for this account"}


async def test_unverified_address_cannot_log_in_until_verification_is_off(
    anon_client, make_user, hash_password, configure
):
    await make_user(
        email="new@example.com", email_verified=False, password_hash=await hash_password(PASSWORD)
    )
    refused = await anon_client.post(LOGIN, json={"email": "new@example.com", "password": PASSWORD})
    assert refused.status_code == 403
    assert refused.json() == {"detail": "Please verify your email first"}
    # the wrong password does not learn that much
    wrong = await anon_client.post(LOGIN, json={"email": "new@example.com", "password": "wrong password"})
    assert wrong.status_code == 401

    configure(CABINET_EMAIL_VERIFICATION_ENABLED=False)
    allowed = await anon_client.post(LOGIN, json={"email": "new@example.com", "password": PASSWORD})
    assert allowed.status_code == 200


async def test_login_is_rate_limited_per_client(anon_client, make_user, hash_password):
    await make_user(
        email="kate@example.com", email_verified=True, password_hash=await hash_password(PASSWORD)
    )
    for _ in range(10):
        response = await anon_client.post(
            LOGIN, json={"email": "kate@example.com", "password": "guess guess"}
        )
        assert response.status_code == 401
    limited = await anon_client.post(LOGIN, json={"email": "kate@example.com", "password": PASSWORD})
    assert limited.status_code == 429
    assert limited.json() == {"detail": "Too many requests"}
    assert 1 <= int(limited.headers["Retry-After"]) <= 60


async def test_an_outdated_hash_is_upgraded_at_login(anon_client, make_user, fetch_user, app):
    old = PasswordHasher(time_cost=1, memory_cost=512, parallelism=1).hash(PASSWORD)
    user = await make_user(email="old@example.com", email_verified=True, password_hash=old)
    response = await anon_client.post(LOGIN, json={"email": "old@example.com", "password": PASSWORD})
    assert response.status_code == 200
    upgraded = (await fetch_user(user.id)).password_hash
    assert upgraded != old and upgraded.startswith("$argon2id$")
    assert not app.state.cabinet_email_passwords.needs_rehash(upgraded)
    again = await anon_client.post(LOGIN, json={"email": "old@example.com", "password": PASSWORD})
    assert again.status_code == 200


async def test_input_bounds(anon_client):
    for body in (
        {"email": "kate@example.com", "password": ""},
        {"email": "x", "password": "p"},
        {"email": "a@b.co"},
    ):
        response = await anon_client.post(LOGIN, json=body)
        assert response.status_code == 422

"""Refresh, logout, and forged or misused JWTs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
import pytest
from sqlalchemy import update
from subsvc_cabinet_auth.models import CabinetRefreshToken

from subsvc.auth.principal import Grants

REFRESH = "/cabinet/auth/refresh"
LOGOUT = "/cabinet/auth/logout"
ME = "/cabinet/auth/me"


@pytest.fixture
async def login(anon_client, sign_init_data):
    """A logged-in messenger user: the AuthResponse body."""
    response = await anon_client.post(
        "/cabinet/auth/messenger", json={"init_data": sign_init_data({"id": 31337})}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_refresh_gives_a_new_access_token_and_keeps_the_refresh_token(
    anon_client, login, auth_header, app, grants
):
    grants[login["user"]["id"]] = Grants(roles=("Support",), permissions=("tickets:read",), level=20)

    response = await anon_client.post(REFRESH, json={"refresh_token": login["refresh_token"]})
    again = await anon_client.post(REFRESH, json={"refresh_token": login["refresh_token"]})

    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"access_token", "refresh_token", "token_type", "expires_in"}
    assert body["refresh_token"] == login["refresh_token"]  # no rotation
    assert (body["token_type"], body["expires_in"]) == ("bearer", 900)
    claims = app.state.jwt.verify(body["access_token"], "access")
    assert (claims["roles"], claims["permissions"], claims["role_level"]) == (
        ["Support"],
        ["tickets:read"],
        20,
    )
    assert again.status_code == 200
    me = await anon_client.get(ME, headers=auth_header(body["access_token"]))
    assert me.status_code == 200


async def test_logout_revokes_the_refresh_token(anon_client, login, rows):
    response = await anon_client.post(LOGOUT, json={"refresh_token": login["refresh_token"]})
    refresh = await anon_client.post(REFRESH, json={"refresh_token": login["refresh_token"]})
    again = await anon_client.post(LOGOUT, json={"refresh_token": login["refresh_token"]})
    unknown = await anon_client.post(LOGOUT, json={"refresh_token": "whatever"})

    assert response.status_code == 200
    assert response.json() == {"message": "Logged out successfully"}
    assert refresh.status_code == 401
    assert refresh.json() == {"detail": "Refresh token not found or revoked"}
    assert (again.status_code, unknown.status_code) == (200, 200)
    (stored,) = await rows(CabinetRefreshToken)
    assert stored.revoked_at is not None


async def test_a_refresh_token_past_its_stored_expiry_is_refused(anon_client, login, db):
    async with db.session() as session:
        await session.exec(
            update(CabinetRefreshToken).values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        await session.commit()

    response = await anon_client.post(REFRESH, json={"refresh_token": login["refresh_token"]})

    assert response.status_code == 401
    assert response.json() == {"detail": "Refresh token is no longer valid"}


async def test_the_refresh_token_of_a_user_blocked_since_is_refused(anon_client, login, db):
    from subsvc_users.models import User

    async with db.session() as session:
        await session.exec(update(User).values(status="blocked"))
        await session.commit()

    response = await anon_client.post(REFRESH, json={"refresh_token": login["refresh_token"]})

    assert response.status_code == 401
    assert response.json() == {"detail": "User not found or inactive"}


async def test_an_access_token_is_no_refresh_token_and_the_other_way_round(anon_client, login, auth_header):
    as_refresh = await anon_client.post(REFRESH, json={"refresh_token": login["access_token"]})
    as_access = await anon_client.get(ME, headers=auth_header(login["refresh_token"]))

    assert as_refresh.status_code == 401
    assert as_refresh.json() == {"detail": "Invalid or expired refresh token"}
    assert as_access.status_code == 401
    assert as_access.json() == {"detail": "Invalid or expired token"}
    assert as_access.headers["www-authenticate"] == "Bearer"


def _forge(app, case: str, user_id: int) -> str:
    now = datetime.now(UTC)
    claims = {"sub": str(user_id), "type": "access", "iat": now, "exp": now + timedelta(minutes=5)}
    secret = app.state.jwt.secret
    if case == "alg none":
        return jwt.encode(claims, None, algorithm="none")
    if case == "wrong key":
        return jwt.encode(claims, "another-secret-that-is-long-enough-0123456789", algorithm="HS256")
    if case == "expired":
        claims.update(iat=now - timedelta(hours=1), exp=now - timedelta(minutes=1))
        return jwt.encode(claims, secret, algorithm="HS256")
    if case == "HS512":
        return jwt.encode(claims, secret, algorithm="HS512")
    if case == "no type":
        del claims["type"]
        return jwt.encode(claims, secret, algorithm="HS256")
    if case == "auto_login type":
        claims["type"] = "auto_login"
        return jwt.encode(claims, secret, algorithm="HS256")
    return "a.b.c"


@pytest.mark.filterwarnings("ignore:The HMAC key")
@pytest.mark.parametrize(
    "case", ["alg none", "wrong key", "expired", "HS512", "no type", "auto_login type", "junk"]
)
async def test_forged_access_tokens_are_refused(anon_client, login, app, auth_header, case):
    token = _forge(app, case, login["user"]["id"])

    response = await anon_client.get(ME, headers=auth_header(token))
    refresh = await anon_client.post(REFRESH, json={"refresh_token": token.replace('"access"', '"refresh"')})

    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid or expired token"}
    assert refresh.status_code == 401


async def test_a_forged_refresh_token_is_refused_even_when_well_signed(anon_client, login, app):
    """A refresh JWT the service never stored (made with a leaked secret, say) is refused."""
    forged = app.state.jwt.refresh_token(login["user"]["id"])

    response = await anon_client.post(REFRESH, json={"refresh_token": forged})

    assert response.status_code == 401
    assert response.json() == {"detail": "Refresh token not found or revoked"}


async def test_a_non_numeric_subject_is_an_invalid_payload(anon_client, app, auth_header):
    token = app.state.jwt.access_token("not-a-number")
    refresh = app.state.jwt.refresh_token("not-a-number")

    response = await anon_client.get(ME, headers=auth_header(token))
    refreshed = await anon_client.post(REFRESH, json={"refresh_token": refresh})

    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token payload"}
    assert refreshed.json() == {"detail": "Invalid token payload"}

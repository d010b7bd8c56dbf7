"""Cabinet JWTs: issue and verify, forged tokens refused, the cabinet and admin gates."""

from __future__ import annotations

import base64
import json
import time

import jwt as pyjwt
import pytest

from subsvc.auth.jwt import JWTCodec, TokenError, WeakSecretError
from subsvc.settings import Settings
from subsvc.testing import ADMIN_MESSENGER_ID, JWT_SECRET


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_issued_tokens_carry_the_claims_and_verify():
    codec = JWTCodec(JWT_SECRET)
    claims = codec.verify(codec.access_token(5, messenger_id=7), "access")
    assert claims["sub"] == "5" and claims["type"] == "access" and claims["messenger_id"] == 7
    assert claims["exp"] - claims["iat"] == 15 * 60
    refresh = codec.verify(codec.refresh_token(5), "refresh")
    assert refresh["exp"] - refresh["iat"] == 7 * 86400


def forged_tokens(codec: JWTCodec) -> dict[str, str]:
    now = int(time.time())
    header = (
        base64.urlsafe_b64encode(json.dumps({"alg": "none", "typ": "JWT"}).encode()).rstrip(b"=").decode()
    )
    body = (
        base64.urlsafe_b64encode(json.dumps({"sub": "1", "type": "access", "exp": now + 60}).encode())
        .rstrip(b"=")
        .decode()
    )
    return {
        "alg none": f"{header}.{body}.",
        "wrong key": pyjwt.encode(
            {"sub": "1", "type": "access", "exp": now + 60}, "x" * 40, algorithm="HS256"
        ),
        "expired": pyjwt.encode(
            {"sub": "1", "type": "access", "exp": now - 5}, JWT_SECRET, algorithm="HS256"
        ),
        "no exp": pyjwt.encode({"sub": "1", "type": "access"}, JWT_SECRET, algorithm="HS256"),
        "HS512": pyjwt.encode({"sub": "1", "type": "access", "exp": now + 60}, JWT_SECRET, algorithm="HS512"),
        "refresh as access": codec.refresh_token(1),
        "garbage": "not.a.jwt",
    }


@pytest.mark.parametrize("case", list(forged_tokens(JWTCodec(JWT_SECRET))))
def test_forged_or_wrong_tokens_are_refused(case):
    codec = JWTCodec(JWT_SECRET)
    with pytest.raises(TokenError):
        codec.verify(forged_tokens(codec)[case], "access")


def test_access_token_is_refused_where_a_refresh_token_is_expected():
    codec = JWTCodec(JWT_SECRET)
    with pytest.raises(TokenError, match="expected a refresh token"):
        codec.verify(codec.access_token(1), "refresh")


def test_a_remembered_access_token_is_still_refused_once_expired():
    codec = JWTCodec(JWT_SECRET)
    expires = int(time.time()) + 1
    token = pyjwt.encode({"sub": "3", "type": "access", "exp": expires}, JWT_SECRET, algorithm="HS256")
    assert codec.verify(token, "access")["sub"] == "3"
    assert codec.verify(token, "access")["sub"] == "3"  # from memory
    with pytest.raises(TokenError, match="expected a refresh token"):
        codec.verify(token, "refresh")  # memory answers for access tokens only
    time.sleep(max(0.0, expires - time.time()) + 0.05)
    with pytest.raises(TokenError):
        codec.verify(token, "access")


def test_short_secret_is_refused_outside_development():
    with pytest.raises(WeakSecretError, match="CABINET_JWT_SECRET must be at least 32 bytes"):
        JWTCodec.from_settings(Settings(_env_file=None, CABINET_JWT_SECRET="short", ENVIRONMENT="production"))
    JWTCodec.from_settings(Settings(_env_file=None, CABINET_JWT_SECRET="short", ENVIRONMENT="development"))
    codec = JWTCodec.from_settings(Settings(_env_file=None, CABINET_JWT_SECRET=None))
    assert len(codec.secret) >= 32


async def test_cabinet_route_needs_a_valid_access_token(anon_client, app, user_token):
    r = await anon_client.get("/cabinet/probe/me")
    assert (r.status_code, r.json()) == (401, {"detail": "Authentication required"})
    assert r.headers["www-authenticate"] == "Bearer"
    for case, token in forged_tokens(app.state.jwt).items():
        r = await anon_client.get("/cabinet/probe/me", headers=bearer(token))
        assert (r.status_code, r.json()) == (401, {"detail": "Invalid or expired token"}), case
    r = await anon_client.get("/cabinet/probe/me", headers=bearer(app.state.jwt.access_token("abc")))
    assert (r.status_code, r.json()) == (401, {"detail": "Invalid token payload"})
    r = await anon_client.get("/cabinet/probe/me", headers=bearer(user_token))
    assert r.json() == {"id": 2, "kind": "user", "is_admin": False}


async def test_admin_area_needs_an_administrator_or_a_granted_permission(
    anon_client, app, user_token, admin_token
):
    r = await anon_client.get("/cabinet/admin/probe/secret")
    assert r.status_code == 401
    r = await anon_client.get("/cabinet/admin/probe/secret", headers=bearer(user_token))
    assert (r.status_code, r.json()) == (403, {"detail": "Admin access required"})
    r = await anon_client.get("/cabinet/admin/probe/secret", headers=bearer(admin_token))
    assert (r.status_code, r.json()) == (200, {"id": 1})
    # a permission-checked route: the probe plugin grants probe:read to tokens with the claim
    r = await anon_client.get("/cabinet/admin/probe/notes", headers=bearer(user_token))
    assert (r.status_code, r.json()) == (403, {"detail": "Insufficient permissions"})
    granted = app.state.jwt.access_token(3, probe=True)
    assert (await anon_client.get("/cabinet/admin/probe/notes", headers=bearer(granted))).status_code == 200
    # an API key is no cabinet credential
    assert (
        await anon_client.get("/cabinet/admin/probe/secret", headers={"X-API-Key": "x"})
    ).status_code == 401


@pytest.mark.parametrize("subsvc_settings_overrides", [{"ADMIN_EMAILS": ["Boss@Example.com"]}])
async def test_verified_admin_email_passes_and_unverified_does_not(anon_client, app):
    verified = app.state.jwt.access_token(8, email="boss@example.com ", email_verified=True)
    unverified = app.state.jwt.access_token(9, email="boss@example.com", email_verified=False)
    assert (await anon_client.get("/cabinet/admin/probe/secret", headers=bearer(verified))).status_code == 200
    assert (
        await anon_client.get("/cabinet/admin/probe/secret", headers=bearer(unverified))
    ).status_code == 403


def test_admin_ids_setting_parses_comma_lists(monkeypatch):
    monkeypatch.setenv("ADMIN_IDS", f"{ADMIN_MESSENGER_ID}, 42,-5")
    monkeypatch.setenv("ADMIN_EMAILS", "A@x.io,b@y.io")
    settings = Settings(_env_file=None)
    assert settings.ADMIN_IDS == [ADMIN_MESSENGER_ID, 42]
    assert settings.ADMIN_EMAILS == ["a@x.io", "b@y.io"]

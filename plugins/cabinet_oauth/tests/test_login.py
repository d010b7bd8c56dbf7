"""OAuth login against the loopback provider: providers, authorization URLs, the callback's
state, code and user-info checks, and the rules that pick (or make) the user."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import update
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_cabinet_oauth.models import OAuthIdentity, OAuthState
from subsvc_cabinet_oauth.testing import CLIENTS, account, callback_body, query_of, start_and_authorize
from subsvc_cabinet_oauth.tokens import digest
from subsvc_users.models import User

from subsvc.db import utcnow

PROVIDERS = ("google", "yandex", "discord", "vk")
EXPECTED_SCOPES = {
    "google": "openid email profile",
    "yandex": "login:info login:email",
    "discord": "identify email",
    "vk": "vkid.personal_info email",
}


async def test_providers_lists_the_enabled_ones(anon_client):
    r = await anon_client.get("/cabinet/auth/oauth/providers")
    assert r.status_code == 200
    assert r.json() == {
        "providers": [
            {"name": "google", "display_name": "Google"},
            {"name": "yandex", "display_name": "Yandex"},
            {"name": "discord", "display_name": "Discord"},
            {"name": "vk", "display_name": "VK ID"},
        ]
    }


@pytest.mark.parametrize("oauth_env", [{"OAUTH_YANDEX_ENABLED": "false", "OAUTH_DISCORD_CLIENT_SECRET": ""}])
async def test_disabled_or_unconfigured_providers_are_not_offered(anon_client, oauth_env):
    r = await anon_client.get("/cabinet/auth/oauth/providers")
    assert [p["name"] for p in r.json()["providers"]] == ["google", "vk"]
    for provider in ("yandex", "discord"):
        r = await anon_client.get(f"/cabinet/auth/oauth/{provider}/authorize")
        assert r.status_code == 400
        assert r.json() == {"detail": "Requested OAuth provider is not available"}


async def test_unknown_provider_is_422(anon_client):
    r = await anon_client.get("/cabinet/auth/oauth/github/authorize")
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["path", "provider"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_authorize_url_carries_client_scope_state_and_pkce(anon_client, rows, fake, provider):
    r = await anon_client.get(f"/cabinet/auth/oauth/{provider}/authorize")
    assert r.status_code == 200
    body = r.json()
    query = query_of(body["authorize_url"])
    assert body["authorize_url"].startswith(f"{fake.base_url}/{provider}/authorize?")
    assert query["state"] == body["state"] and len(body["state"]) >= 43
    assert query["scope"] == EXPECTED_SCOPES[provider]
    assert query["redirect_uri"] == "https://cabinet.example/auth/oauth/callback"
    assert query["response_type"] == "code"
    (stored,) = await rows(OAuthState)
    assert stored.state_hash == digest(body["state"]) and stored.provider == provider
    assert (stored.expires_at - stored.created_at) == timedelta(minutes=10)
    if provider == "discord":
        assert "code_challenge" not in query and stored.code_verifier is None
    else:
        assert query["code_challenge_method"] == "S256"
        assert stored.code_verifier and query["code_challenge"] != stored.code_verifier


async def test_redirect_uri_follows_an_allowed_origin_only(anon_client):
    r = await anon_client.get(
        "/cabinet/auth/oauth/google/authorize", headers={"Origin": "https://app.example"}
    )
    assert query_of(r.json()["authorize_url"])["redirect_uri"] == "https://app.example/auth/oauth/callback"
    r = await anon_client.get(
        "/cabinet/auth/oauth/google/authorize", headers={"Origin": "https://evil.example"}
    )
    assert (
        query_of(r.json()["authorize_url"])["redirect_uri"] == "https://cabinet.example/auth/oauth/callback"
    )


async def test_login_redirect_sends_the_browser_to_the_provider(anon_client, fake, rows):
    r = await anon_client.get("/cabinet/auth/oauth/vk")
    assert r.status_code == 302
    location = r.headers["location"]
    assert location.startswith(f"{fake.base_url}/vk/authorize?")
    (stored,) = await rows(OAuthState)
    assert stored.state_hash == digest(query_of(location)["state"])


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_first_login_creates_the_user_and_the_identity(oauth_login, rows, provider, fake):
    r = await oauth_login(provider, account(provider, "acc-1", email="Ann@Example.com"))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["token_type"] == "bearer" and body["access_token"] and body["refresh_token"]
    user = body["user"]
    assert user["email"] == "ann@example.com" and user["email_verified"] is True
    assert user["auth_type"] == provider and user["messenger_id"] is None
    assert user["first_name"] == "Ann"
    (identity,) = await rows(OAuthIdentity)
    assert (identity.provider, identity.subject, identity.user_id) == (provider, "acc-1", user["id"])
    (row,) = await rows(User, id=user["id"])
    assert row.email_verification_source == f"oauth_{provider}"
    (session,) = await rows(CabinetRefreshToken)
    assert session.device_info == f"oauth:{provider}" and session.user_id == user["id"]
    assert await rows(OAuthState) == []  # consumed
    request = fake.token_requests[-1]
    assert request["client_id"] and request["grant_type"] == "authorization_code"
    assert ("code_verifier" in request) == (provider != "discord")


async def test_access_token_from_the_login_works_in_the_cabinet(oauth_login, anon_client):
    r = await oauth_login("google", account("google", "g-1", email="ann@example.com"))
    token = r.json()["access_token"]
    r = await anon_client.get(
        "/cabinet/auth/account/linked-providers", headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200
    google = next(p for p in r.json()["providers"] if p["provider"] == "google")
    assert google == {"provider": "google", "linked": True, "identifier": "g-1"}


async def test_second_login_finds_the_same_user(oauth_login, rows):
    first = await oauth_login("discord", account("discord", "d-1", email="ann@example.com"))
    second = await oauth_login(
        "discord", account("discord", "d-1", email="new@example.com", first_name="Anna")
    )
    assert second.status_code == 200
    assert second.json()["user"]["id"] == first.json()["user"]["id"]
    assert len(await rows(User)) == 1
    (identity,) = await rows(OAuthIdentity)
    assert identity.email == "new@example.com" and identity.display_name == "Anna"


async def test_referral_code_sets_the_inviter_of_a_new_user(oauth_login, insert_user, rows):
    inviter = await insert_user(referral_code="refINVITE1")
    r = await oauth_login("google", account("google", "g-2"), referral_code="refINVITE1")
    (user,) = await rows(User, id=r.json()["user"]["id"])
    assert user.referred_by_id == inviter.id


# --- the state -----------------------------------------------------------------------------------


async def test_forged_state_is_refused(oauth_login, fake, anon_client):
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    r = await anon_client.post(
        "/cabinet/auth/oauth/google/callback", json={**callback_body(back), "state": "forged-state"}
    )
    assert r.status_code == 400
    assert r.json() == {"detail": "Invalid or expired OAuth state"}
    assert fake.token_requests == []  # the provider is not even asked


async def test_a_state_is_used_once(anon_client, fake, rows):
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/yandex/authorize", account("yandex", "y")
    )
    r = await anon_client.post("/cabinet/auth/oauth/yandex/callback", json=callback_body(back))
    assert r.status_code == 200
    r = await anon_client.post("/cabinet/auth/oauth/yandex/callback", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == "Invalid or expired OAuth state"
    assert len(await rows(User)) == 1


async def test_a_failed_exchange_still_uses_the_state_up(anon_client, fake):
    fake.failing.add("token")
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    r = await anon_client.post("/cabinet/auth/oauth/google/callback", json=callback_body(back))
    assert r.json() == {"detail": "Failed to exchange authorization code"}
    fake.failing.clear()
    r = await anon_client.post("/cabinet/auth/oauth/google/callback", json=callback_body(back))
    assert r.json() == {"detail": "Invalid or expired OAuth state"}


async def test_expired_state_is_refused(anon_client, fake, db):
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    async with db.session() as session:
        await session.exec(update(OAuthState).values(expires_at=utcnow() - timedelta(seconds=1)))
        await session.commit()
    r = await anon_client.post("/cabinet/auth/oauth/google/callback", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == "Invalid or expired OAuth state"


async def test_state_is_bound_to_its_provider(anon_client, fake):
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    r = await anon_client.post("/cabinet/auth/oauth/discord/callback", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == "Invalid or expired OAuth state"


async def test_a_linking_state_does_not_log_in(anon_client, fake, insert_user, bearer):
    user = await insert_user()
    path = "/cabinet/auth/account/link/google/init"
    _, back = await start_and_authorize(
        anon_client, fake, path, account("google", "g"), headers=bearer(user.id)
    )
    r = await anon_client.post("/cabinet/auth/oauth/google/callback", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == "OAuth state was not initiated for login"


# --- the provider's answers ---------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["google", "yandex", "vk"])
async def test_wrong_pkce_verifier_fails_the_exchange(anon_client, fake, db, provider):
    _, back = await start_and_authorize(
        anon_client, fake, f"/cabinet/auth/oauth/{provider}/authorize", account(provider, "x")
    )
    async with db.session() as session:
        await session.exec(update(OAuthState).values(code_verifier="a-verifier-that-was-never-challenged"))
        await session.commit()
    r = await anon_client.post(f"/cabinet/auth/oauth/{provider}/callback", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == "Failed to exchange authorization code"


async def test_wrong_client_secret_fails_the_exchange(anon_client, fake, monkeypatch):
    monkeypatch.setitem(CLIENTS, "google", ("google-client", "a-secret-we-do-not-have"))
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    r = await anon_client.post("/cabinet/auth/oauth/google/callback", json=callback_body(back))
    assert r.json() == {"detail": "Failed to exchange authorization code"}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("endpoint", "detail"),
    [
        ("token", "Failed to exchange authorization code"),
        ("userinfo", "Failed to fetch user information from provider"),
    ],
)
async def test_a_provider_endpoint_failure_is_400(anon_client, fake, rows, provider, endpoint, detail):
    fake.failing.add(endpoint)
    _, back = await start_and_authorize(
        anon_client, fake, f"/cabinet/auth/oauth/{provider}/authorize", account(provider, "x")
    )
    r = await anon_client.post(f"/cabinet/auth/oauth/{provider}/callback", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == detail
    assert await rows(User) == [] and await rows(OAuthIdentity) == []


async def test_vk_needs_the_device_id(anon_client, fake):
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/vk/authorize", account("vk", "1")
    )
    r = await anon_client.post(
        "/cabinet/auth/oauth/vk/callback", json={"code": back["code"], "state": back["state"]}
    )
    assert r.status_code == 400 and r.json()["detail"] == "Failed to exchange authorization code"
    assert fake.token_requests == []


async def test_provider_unreachable_is_400(app, anon_client, fake, monkeypatch):
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    settings = app.state.settings_of["cabinet_oauth"]
    dead = settings.model_copy(update={"OAUTH_GOOGLE_TOKEN_URL": "http://127.0.0.1:9/token"})
    app.state.settings_of["cabinet_oauth"] = dead
    r = await anon_client.post("/cabinet/auth/oauth/google/callback", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == "Failed to exchange authorization code"


# --- which user ----------------------------------------------------------------------------------------


async def test_verified_email_of_a_verified_local_user_links_and_logs_in(oauth_login, insert_user, rows):
    local = await insert_user(email="ann@example.com", email_verified=True, auth_type="email")
    r = await oauth_login("google", account("google", "g-1", email="ANN@example.com"))
    assert r.status_code == 200
    assert r.json()["user"]["id"] == local.id
    (identity,) = await rows(OAuthIdentity)
    assert identity.user_id == local.id
    assert len(await rows(User)) == 1


async def test_verified_email_of_an_unverified_local_user_is_409(oauth_login, insert_user, rows):
    await insert_user(email="ann@example.com", email_verified=False)
    r = await oauth_login("google", account("google", "g-1", email="ann@example.com"))
    assert r.status_code == 409
    detail = r.json()["detail"]
    assert detail["code"] == "email_unverified_local" and detail["message"]
    assert await rows(OAuthIdentity) == [] and len(await rows(User)) == 1


async def test_unverified_provider_email_never_links(oauth_login, insert_user, rows):
    local = await insert_user(email="ann@example.com", email_verified=True)
    r = await oauth_login("discord", account("discord", "d-1", email="ann@example.com", verified=False))
    assert r.status_code == 200
    user = r.json()["user"]
    assert user["id"] != local.id and user["email"] is None and user["email_verified"] is False


async def test_unverified_free_email_is_kept_unverified(oauth_login):
    r = await oauth_login("google", account("google", "g-1", email="ann@example.com", verified=False))
    assert r.json()["user"]["email"] == "ann@example.com"
    assert r.json()["user"]["email_verified"] is False


async def test_blocked_user_is_refused(oauth_login, rows, db):
    r = await oauth_login("google", account("google", "g-1"))
    user_id = r.json()["user"]["id"]
    async with db.session() as session:
        await session.exec(update(User).where(User.id == user_id).values(status="blocked"))
        await session.commit()
    r = await oauth_login("google", account("google", "g-1"))
    assert r.status_code == 403 and r.json() == {"detail": "User account is not active"}


async def test_deleted_user_is_revived(oauth_login, rows, db):
    r = await oauth_login("yandex", account("yandex", "y-1"))
    user_id = r.json()["user"]["id"]
    async with db.session() as session:
        await session.exec(update(User).where(User.id == user_id).values(status="deleted"))
        await session.commit()
    r = await oauth_login("yandex", account("yandex", "y-1"))
    assert r.status_code == 200 and r.json()["user"]["id"] == user_id
    (user,) = await rows(User, id=user_id)
    assert user.status == "active"


async def test_callback_is_rate_limited(anon_client, fake):
    statuses = []
    for _ in range(11):
        r = await anon_client.post("/cabinet/auth/oauth/google/callback", json={"code": "c", "state": "s"})
        statuses.append(r.status_code)
    assert statuses[:10] == [400] * 10
    assert statuses[10] == 429 and int(r.headers["retry-after"]) > 0


async def test_concurrent_first_logins_of_one_account_make_one_user(anon_client, fake, rows):
    profile = account("google", "g-race", email="race@example.com")
    path = "/cabinet/auth/oauth/google/authorize"
    backs = [(await start_and_authorize(anon_client, fake, path, profile))[1] for _ in range(2)]
    answers = await asyncio.gather(
        *(anon_client.post("/cabinet/auth/oauth/google/callback", json=callback_body(back)) for back in backs)
    )
    assert [r.status_code for r in answers] == [200, 200], [r.text for r in answers]
    assert answers[0].json()["user"]["id"] == answers[1].json()["user"]["id"]
    assert len(await rows(User)) == 1 and len(await rows(OAuthIdentity)) == 1

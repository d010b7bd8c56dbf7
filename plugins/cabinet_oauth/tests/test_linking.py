"""Account linking: the list of ways to log in, linking a provider or the messenger, the merge
offer when the account belongs to another user, unlinking, and server-side completion."""

from __future__ import annotations

import time
from typing import Any

import httpx2
import pytest
from subsvc_cabinet_oauth.models import MergeToken, OAuthIdentity, OAuthState
from subsvc_cabinet_oauth.testing import FakeProvider, account, callback_body, start_and_authorize
from subsvc_users.models import User


def by_provider(body: dict) -> dict[str, dict]:
    return {item["provider"]: item for item in body["providers"]}


async def link_twice(
    http: httpx2.AsyncClient,
    fake: FakeProvider,
    headers: dict[str, str],
    provider: str,
    first: str,
    second: str,
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Two links of ``provider`` started and authorized by the user of ``headers`` (accounts
    ``first``, then ``second``); the callback URL and both callback bodies."""
    path = f"/cabinet/auth/account/link/{provider}/init"
    _, one = await start_and_authorize(http, fake, path, account(provider, first), headers=headers)
    _, two = await start_and_authorize(http, fake, path, account(provider, second), headers=headers)
    return f"/cabinet/auth/account/link/{provider}/callback", callback_body(one), callback_body(two)


async def test_linked_providers_lists_every_way_to_log_in(anon_client, insert_user, bearer):
    user = await insert_user(messenger_id=4242)
    r = await anon_client.get("/cabinet/auth/account/linked-providers", headers=bearer(user.id))
    assert r.status_code == 200
    providers = by_provider(r.json())
    assert list(providers) == ["messenger", "google", "yandex", "discord", "vk"]
    assert providers["messenger"] == {"provider": "messenger", "linked": True, "identifier": "4242"}
    assert providers["vk"] == {"provider": "vk", "linked": False, "identifier": None}


async def test_linking_needs_a_login(anon_client):
    r = await anon_client.get("/cabinet/auth/account/linked-providers")
    assert r.status_code == 401
    r = await anon_client.get("/cabinet/auth/account/link/google/init")
    assert r.status_code == 401


@pytest.mark.parametrize("provider", ["google", "yandex", "discord", "vk"])
async def test_link_a_provider(oauth_link, insert_user, rows, anon_client, bearer, provider):
    user = await insert_user()
    r = await oauth_link(user.id, provider, account(provider, "p-1", email="max@example.com"))
    assert r.status_code == 200, r.text
    assert r.json() == {"success": True, "message": "linked", "merge_required": False, "merge_token": None}
    (identity,) = await rows(OAuthIdentity)
    assert (identity.user_id, identity.provider, identity.subject) == (user.id, provider, "p-1")
    (row,) = await rows(User, id=user.id)
    assert row.email == "max@example.com" and row.email_verified  # a verified address fills an empty slot
    r = await anon_client.get("/cabinet/auth/account/linked-providers", headers=bearer(user.id))
    assert by_provider(r.json())[provider] == {"provider": provider, "linked": True, "identifier": "p-1"}


async def test_linked_provider_then_logs_in_as_that_user(oauth_link, oauth_login, insert_user):
    user = await insert_user()
    await oauth_link(user.id, "vk", account("vk", "777"))
    r = await oauth_login("vk", account("vk", "777"))
    assert r.status_code == 200 and r.json()["user"]["id"] == user.id


async def test_link_keeps_an_existing_email(oauth_link, insert_user, rows):
    user = await insert_user(email="own@example.com", email_verified=True)
    await oauth_link(user.id, "google", account("google", "g-1", email="other@example.com"))
    (row,) = await rows(User, id=user.id)
    assert row.email == "own@example.com"


async def test_init_refuses_a_provider_already_linked(oauth_link, insert_user, anon_client, bearer):
    user = await insert_user()
    await oauth_link(user.id, "google", account("google", "g-1"))
    r = await anon_client.get("/cabinet/auth/account/link/google/init", headers=bearer(user.id))
    assert r.status_code == 400 and r.json() == {"detail": "Provider is already linked to your account"}


async def test_linking_the_same_account_again_is_already_linked(anon_client, fake, insert_user, bearer, db):
    user = await insert_user()
    headers = bearer(user.id)
    url, first, second = await link_twice(anon_client, fake, headers, "discord", "d-1", "d-1")
    assert (await anon_client.post(url, json=first, headers=headers)).json()["message"] == "linked"
    r = await anon_client.post(url, json=second, headers=headers)
    assert r.json() == {
        "success": True,
        "message": "already_linked",
        "merge_required": False,
        "merge_token": None,
    }


async def test_another_account_of_a_linked_provider_is_409(anon_client, fake, insert_user, bearer, rows):
    user = await insert_user()
    headers = bearer(user.id)
    url, first, second = await link_twice(anon_client, fake, headers, "google", "g-1", "g-2")
    await anon_client.post(url, json=first, headers=headers)
    r = await anon_client.post(url, json=second, headers=headers)
    assert r.status_code == 409 and "Unlink it first" in r.json()["detail"]
    assert [i.subject for i in await rows(OAuthIdentity)] == ["g-1"]


async def test_an_account_of_another_user_offers_a_merge(oauth_login, oauth_link, insert_user, rows):
    other = (await oauth_login("yandex", account("yandex", "y-1"))).json()["user"]["id"]
    me = await insert_user()
    r = await oauth_link(me.id, "yandex", account("yandex", "y-1"))
    assert r.status_code == 200
    body = r.json()
    assert body["success"] is False and body["merge_required"] is True and body["message"] == "merge_required"
    assert 32 <= len(body["merge_token"]) <= 64
    (token,) = await rows(MergeToken)
    assert (token.primary_user_id, token.secondary_user_id, token.provider, token.subject) == (
        me.id,
        other,
        "yandex",
        "y-1",
    )
    assert token.token_hash != body["merge_token"]  # stored hashed
    (identity,) = await rows(OAuthIdentity)
    assert identity.user_id == other  # nothing moved yet


async def test_a_state_of_another_user_is_refused(anon_client, fake, insert_user, bearer):
    alice, bob = await insert_user(), await insert_user()
    path = "/cabinet/auth/account/link/google/init"
    _, back = await start_and_authorize(
        anon_client, fake, path, account("google", "g"), headers=bearer(alice.id)
    )
    r = await anon_client.post(
        "/cabinet/auth/account/link/google/callback", json=callback_body(back), headers=bearer(bob.id)
    )
    assert r.status_code == 400 and r.json() == {"detail": "OAuth state was initiated by a different user"}


async def test_a_login_state_does_not_link(anon_client, fake, insert_user, bearer):
    user = await insert_user()
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    r = await anon_client.post(
        "/cabinet/auth/account/link/google/callback", json=callback_body(back), headers=bearer(user.id)
    )
    assert r.status_code == 400 and r.json() == {
        "detail": "OAuth state was not initiated for account linking"
    }


async def test_link_provider_failures_are_400(anon_client, fake, insert_user, bearer, rows):
    user = await insert_user()
    fake.failing.add("userinfo")
    path = "/cabinet/auth/account/link/google/init"
    _, back = await start_and_authorize(
        anon_client, fake, path, account("google", "g"), headers=bearer(user.id)
    )
    r = await anon_client.post(
        "/cabinet/auth/account/link/google/callback", json=callback_body(back), headers=bearer(user.id)
    )
    assert r.status_code == 400 and r.json()["detail"] == "Failed to fetch user information from provider"
    assert await rows(OAuthIdentity) == []


# --- server-side completion ------------------------------------------------------------------------


async def test_server_complete_links_without_a_jwt(anon_client, fake, insert_user, bearer, rows):
    user = await insert_user()
    path = "/cabinet/auth/account/link/vk/init"
    _, back = await start_and_authorize(anon_client, fake, path, account("vk", "55"), headers=bearer(user.id))
    r = await anon_client.post("/cabinet/auth/account/link/server-complete", json=callback_body(back))
    assert r.status_code == 200, r.text
    assert r.json() == {
        "success": True,
        "message": "linked",
        "merge_required": False,
        "merge_token": None,
        "provider": "vk",
    }
    (identity,) = await rows(OAuthIdentity)
    assert identity.user_id == user.id
    r = await anon_client.post("/cabinet/auth/account/link/server-complete", json=callback_body(back))
    assert r.status_code == 400 and r.json()["detail"] == "Invalid or expired OAuth state"


async def test_server_complete_checks_the_provider_and_purpose(anon_client, fake, insert_user, bearer):
    user = await insert_user()
    path = "/cabinet/auth/account/link/google/init"
    _, back = await start_and_authorize(
        anon_client, fake, path, account("google", "g"), headers=bearer(user.id)
    )
    r = await anon_client.post(
        "/cabinet/auth/account/link/server-complete", json={**callback_body(back), "provider": "yandex"}
    )
    assert r.status_code == 400 and r.json() == {"detail": "Provider does not match OAuth state"}
    _, back = await start_and_authorize(
        anon_client, fake, "/cabinet/auth/oauth/google/authorize", account("google", "g")
    )
    r = await anon_client.post("/cabinet/auth/account/link/server-complete", json=callback_body(back))
    assert r.status_code == 400 and r.json() == {
        "detail": "OAuth state was not initiated for account linking"
    }


# --- unlinking -------------------------------------------------------------------------------------------


async def test_unlink_a_provider(oauth_link, insert_user, anon_client, bearer, rows):
    user = await insert_user(messenger_id=31337)
    await oauth_link(user.id, "discord", account("discord", "d-1"))
    r = await anon_client.post("/cabinet/auth/account/unlink/discord", headers=bearer(user.id))
    assert r.status_code == 200 and r.json() == {"success": True}
    assert await rows(OAuthIdentity) == []


async def test_the_last_way_to_log_in_stays(oauth_login, anon_client, rows):
    r = await oauth_login("google", account("google", "g-1"))
    headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
    r = await anon_client.post("/cabinet/auth/account/unlink/google", headers=headers)
    assert r.status_code == 400 and r.json() == {"detail": "Cannot unlink last authentication method"}
    assert len(await rows(OAuthIdentity)) == 1


async def test_two_providers_unlink_down_to_one(oauth_login, oauth_link, anon_client, rows):
    r = await oauth_login("google", account("google", "g-1"))
    user_id = r.json()["user"]["id"]
    headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
    await oauth_link(user_id, "yandex", account("yandex", "y-1"))
    assert (await anon_client.post("/cabinet/auth/account/unlink/google", headers=headers)).status_code == 200
    r = await anon_client.post("/cabinet/auth/account/unlink/yandex", headers=headers)
    assert r.status_code == 400 and r.json()["detail"] == "Cannot unlink last authentication method"
    assert [i.provider for i in await rows(OAuthIdentity)] == ["yandex"]


async def test_unlink_of_a_provider_not_linked_is_400(insert_user, anon_client, bearer):
    user = await insert_user()
    r = await anon_client.post("/cabinet/auth/account/unlink/vk", headers=bearer(user.id))
    assert r.status_code == 400 and r.json() == {"detail": "Provider is not linked to your account"}


# --- the messenger ------------------------------------------------------------------------------------


async def test_link_the_messenger_with_init_data(oauth_login, anon_client, rows, sign):
    r = await oauth_login("google", account("google", "g-1"))
    headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
    r = await anon_client.post(
        "/cabinet/auth/account/link/messenger", json={"init_data": sign.init_data(555001)}, headers=headers
    )
    assert r.status_code == 200, r.text
    assert r.json()["success"] is True and r.json()["message"] == "linked"
    (user,) = await rows(User)
    assert user.messenger_id == 555001


async def test_link_the_messenger_with_widget_fields_once(oauth_login, anon_client, rows, sign):
    r = await oauth_login("google", account("google", "g-1"))
    headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
    fields = sign.widget(555002, username="maxim")
    r = await anon_client.post("/cabinet/auth/account/link/messenger", json=fields, headers=headers)
    assert r.status_code == 200 and r.json()["message"] == "linked"
    other = await oauth_login("yandex", account("yandex", "y-9"))
    headers = {"Authorization": f"Bearer {other.json()['access_token']}"}
    r = await anon_client.post("/cabinet/auth/account/link/messenger", json=fields, headers=headers)
    assert (
        r.status_code == 400 and r.json()["detail"] == "This messenger authorization has already been used."
    )


async def test_forged_or_stale_messenger_data_is_refused(insert_user, anon_client, bearer, sign, rows):
    user = await insert_user(messenger_id=None, email="a@example.com", password_hash="x")
    forged = sign.init_data(555003).replace("Max", "Eve")
    r = await anon_client.post(
        "/cabinet/auth/account/link/messenger", json={"init_data": forged}, headers=bearer(user.id)
    )
    assert r.status_code == 400 and r.json()["detail"] == "Invalid or expired messenger initData"
    stale = sign.widget(555003, auth_date=int(time.time()) - 3 * 86400)
    r = await anon_client.post("/cabinet/auth/account/link/messenger", json=stale, headers=bearer(user.id))
    assert r.status_code == 400 and r.json()["detail"] == "Invalid or expired messenger Login Widget data"
    (row,) = await rows(User)
    assert row.messenger_id is None


async def test_link_messenger_body_needs_exactly_one_mode(insert_user, anon_client, bearer, sign):
    user = await insert_user(messenger_id=None)
    body = {"init_data": sign.init_data(1), **sign.widget(1)}
    r = await anon_client.post("/cabinet/auth/account/link/messenger", json=body, headers=bearer(user.id))
    assert r.status_code == 422
    r = await anon_client.post("/cabinet/auth/account/link/messenger", json={}, headers=bearer(user.id))
    assert r.status_code == 422


async def test_messenger_already_linked_is_400(insert_user, anon_client, bearer, sign):
    user = await insert_user(messenger_id=1000)
    r = await anon_client.post(
        "/cabinet/auth/account/link/messenger",
        json={"init_data": sign.init_data(2000)},
        headers=bearer(user.id),
    )
    assert r.status_code == 400 and r.json() == {"detail": "Messenger is already linked to your account"}


async def test_a_messenger_account_of_another_user_offers_a_merge(
    oauth_login, insert_user, anon_client, sign, rows
):
    owner = await insert_user(messenger_id=777000)
    r = await oauth_login("google", account("google", "g-1"))
    headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
    r = await anon_client.post(
        "/cabinet/auth/account/link/messenger", json={"init_data": sign.init_data(777000)}, headers=headers
    )
    body = r.json()
    assert body["merge_required"] is True and body["success"] is False and body["merge_token"]
    (token,) = await rows(MergeToken)
    assert (token.secondary_user_id, token.provider, token.subject) == (owner.id, "messenger", "777000")


async def test_states_of_the_link_flow_are_bound_to_the_user(anon_client, fake, insert_user, bearer, rows):
    user = await insert_user()
    await anon_client.get("/cabinet/auth/account/link/yandex/init", headers=bearer(user.id))
    (state,) = await rows(OAuthState)
    assert (state.purpose, state.user_id, state.provider) == ("link", user.id, "yandex")

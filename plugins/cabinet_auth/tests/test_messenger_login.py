"""POST /cabinet/auth/messenger: the mini application's signed init data."""

from __future__ import annotations

import hashlib
import time

import pytest
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_users.models import User

from subsvc.events import OutboxEvent

PATH = "/cabinet/auth/messenger"
ANN = {"id": 4242, "first_name": "Ann", "last_name": "Lee", "username": "ann", "language_code": "en"}


async def test_first_login_creates_the_user_and_answers_tokens(anon_client, sign_init_data, rows, app):
    response = await anon_client.post(PATH, json={"init_data": sign_init_data(ANN)})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "bearer"
    assert body["expires_in"] == 15 * 60
    assert body["campaign_bonus"] is None
    user = body["user"]
    assert (user["messenger_id"], user["username"], user["first_name"], user["last_name"]) == (
        4242,
        "ann",
        "Ann",
        "Lee",
    )
    assert (user["language"], user["auth_type"], user["balance_kopeks"], user["balance_rubles"]) == (
        "en",
        "messenger",
        0,
        0.0,
    )
    assert user["referral_code"].startswith("ref")
    (row,) = await rows(User, messenger_id=4242)
    assert row.id == user["id"] and row.cabinet_last_login is not None
    (stored,) = await rows(CabinetRefreshToken, user_id=row.id)
    assert stored.token_hash == hashlib.sha256(body["refresh_token"].encode()).hexdigest()
    assert stored.revoked_at is None
    claims = app.state.jwt.verify(body["access_token"], "access")
    assert claims["sub"] == str(row.id) and claims["messenger_id"] == 4242
    assert (claims["permissions"], claims["roles"], claims["role_level"]) == ([], [], 0)
    assert [e.event_type for e in await rows(OutboxEvent)] == ["user.created"]


async def test_next_login_finds_the_user_and_refreshes_the_profile(anon_client, sign_init_data, rows):
    first = await anon_client.post(PATH, json={"init_data": sign_init_data(ANN)})
    again = await anon_client.post(
        PATH, json={"init_data": sign_init_data({**ANN, "username": "ann_new", "first_name": "Anna"})}
    )

    assert again.status_code == 200, again.text
    assert again.json()["user"]["id"] == first.json()["user"]["id"]
    (row,) = await rows(User, messenger_id=4242)
    assert (row.username, row.first_name) == ("ann_new", "Anna")
    assert len(await rows(CabinetRefreshToken)) == 2  # one session per login


async def test_the_same_init_data_logs_in_again_within_its_age(anon_client, sign_init_data, rows):
    """Clients keep init data for the whole launch of the mini application and send it again:
    a replay inside the maximum age is the same person, not an attack (the widget's data,
    which travels in URLs, is single-use instead)."""
    data = sign_init_data(ANN)
    first = await anon_client.post(PATH, json={"init_data": data})
    replay = await anon_client.post(PATH, json={"init_data": data})

    assert replay.status_code == 200
    assert replay.json()["user"]["id"] == first.json()["user"]["id"]
    assert len(await rows(User)) == 1


@pytest.mark.parametrize(
    "case",
    ["other bot token", "tampered user", "tampered auth_date", "no hash", "garbage hash", "not a query"],
)
async def test_forged_init_data_is_refused(anon_client, sign_init_data, rows, case):
    data = sign_init_data(ANN)
    if case == "other bot token":
        data = sign_init_data(ANN, token="999:someone-else")
    elif case == "tampered user":
        data = data.replace("4242", "4243")
    elif case == "tampered auth_date":
        data = data.replace("auth_date=", "auth_date=1")
    elif case == "no hash":
        data = "&".join(part for part in data.split("&") if not part.startswith("hash="))
    elif case == "garbage hash":
        data = data.split("hash=")[0] + "hash=" + "é" * 64
    else:
        data = "%%%"

    response = await anon_client.post(PATH, json={"init_data": data})

    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid or expired authentication data"}
    assert await rows(User) == []


@pytest.mark.parametrize("age", [30 * 86400 + 120, -3600])
async def test_init_data_too_old_or_from_the_future_is_refused(anon_client, sign_init_data, age):
    data = sign_init_data(ANN, auth_date=int(time.time()) - age)

    response = await anon_client.post(PATH, json={"init_data": data})

    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid or expired authentication data"


async def test_init_data_without_a_user_is_refused(anon_client, sign_init_data):
    response = await anon_client.post(PATH, json={"init_data": sign_init_data(None)})

    assert response.status_code == 401
    assert response.json()["detail"] == "Missing messenger user ID"


async def test_a_deleted_account_is_revived_and_a_blocked_one_refused(
    anon_client, sign_init_data, insert_user, rows
):
    deleted = await insert_user(messenger_id=5001, status="deleted")
    blocked_user = await insert_user(messenger_id=5002, status="blocked")

    revived = await anon_client.post(PATH, json={"init_data": sign_init_data({"id": 5001})})
    blocked = await anon_client.post(PATH, json={"init_data": sign_init_data({"id": 5002})})

    assert revived.status_code == 200
    assert revived.json()["user"]["id"] == deleted.id
    (row,) = await rows(User, messenger_id=5001)
    assert row.status == "active"
    assert blocked.status_code == 403
    assert blocked.json() == {"detail": "User account is not active"}
    assert await rows(CabinetRefreshToken, user_id=blocked_user.id) == []


async def test_a_referral_code_makes_the_inviter_the_referrer_of_a_new_user(
    anon_client, sign_init_data, insert_user, rows
):
    inviter = await insert_user(messenger_id=6001, referral_code="refINVITE1")

    response = await anon_client.post(
        PATH, json={"init_data": sign_init_data({"id": 6002}), "referral_code": "refINVITE1"}
    )
    own_code = await anon_client.post(
        PATH, json={"init_data": sign_init_data({"id": 6001}), "referral_code": "refINVITE1"}
    )

    assert response.status_code == 200
    (newcomer,) = await rows(User, messenger_id=6002)
    assert newcomer.referred_by_id == inviter.id
    assert own_code.status_code == 200
    (row,) = await rows(User, messenger_id=6001)
    assert row.referred_by_id is None


async def test_bounds_of_the_request_are_checked(anon_client):
    response = await anon_client.post(
        PATH, json={"init_data": "x" * 4097, "campaign_slug": "bad slug!", "referral_code": "x" * 33}
    )

    assert response.status_code == 422
    assert {tuple(e["loc"]) for e in response.json()["detail"]} == {
        ("body", "init_data"),
        ("body", "campaign_slug"),
        ("body", "referral_code"),
    }


@pytest.mark.parametrize("subsvc_settings_overrides", [{"BOT_TOKEN": None}])
async def test_without_a_bot_token_the_login_is_unavailable(anon_client, sign_init_data):
    response = await anon_client.post(PATH, json={"init_data": sign_init_data(ANN)})

    assert response.status_code == 503
    assert response.json() == {"detail": "Bot not configured"}

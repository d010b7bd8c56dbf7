"""POST /cabinet/auth/messenger/widget: the login widget's signed fields, each usable once."""

from __future__ import annotations

import time

import pytest
from subsvc_cabinet_auth.models import UsedCredential
from subsvc_users.models import User

PATH = "/cabinet/auth/messenger/widget"


async def test_valid_widget_data_logs_in_and_creates_the_user(anon_client, sign_widget, rows):
    data = sign_widget(555_000_001, last_name="Maximoff", photo_url="https://cdn.example/p.jpg")

    response = await anon_client.post(PATH, json={**data, "referral_code": None})

    assert response.status_code == 200, response.text
    user = response.json()["user"]
    assert (user["messenger_id"], user["first_name"], user["last_name"], user["username"]) == (
        555_000_001,
        "Wanda",
        "Maximoff",
        "wanda",
    )
    (row,) = await rows(User, messenger_id=555_000_001)
    assert row.language == "ru"
    (used,) = await rows(UsedCredential)
    assert used.kind == "widget"


async def test_a_replayed_payload_is_refused(anon_client, sign_widget):
    data = sign_widget()
    first = await anon_client.post(PATH, json=data)
    replay = await anon_client.post(PATH, json=data)

    assert first.status_code == 200
    assert replay.status_code == 401
    assert replay.json() == {"detail": "This authorization has already been used. Please log in again."}


@pytest.mark.parametrize("case", ["other bot token", "changed id", "changed name", "garbage hash"])
async def test_forged_widget_data_is_refused(anon_client, sign_widget, rows, case):
    data = sign_widget(token="999:someone-else") if case == "other bot token" else sign_widget()
    if case == "changed id":
        data["id"] += 1
    elif case == "changed name":
        data["first_name"] = "Mallory"
    elif case == "garbage hash":
        data["hash"] = "ж" * 64

    response = await anon_client.post(PATH, json=data)

    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid or expired authentication data"}
    assert await rows(User) == []
    assert await rows(UsedCredential) == []


@pytest.mark.parametrize("age", [86400 + 60, -3600])
async def test_old_or_future_widget_data_is_refused(anon_client, sign_widget, age):
    data = sign_widget(auth_date=int(time.time()) - age)

    response = await anon_client.post(PATH, json=data)

    assert response.status_code == 401


async def test_widget_login_of_inactive_users_is_refused_and_not_consumed(
    anon_client, sign_widget, insert_user, rows
):
    await insert_user(messenger_id=555_000_002, status="deleted")
    await insert_user(messenger_id=555_000_003, status="blocked")

    deleted = await anon_client.post(PATH, json=sign_widget(555_000_002))
    blocked = await anon_client.post(PATH, json=sign_widget(555_000_003))

    assert (deleted.status_code, blocked.status_code) == (403, 403)
    assert deleted.json() == {"detail": "User account is not active"}
    assert await rows(UsedCredential) == []  # the failed login changed nothing


async def test_bounds_of_the_widget_fields_are_checked(anon_client, sign_widget):
    data = sign_widget(first_name="x" * 65, username="u" * 33)
    data["hash"] = "ab"

    response = await anon_client.post(PATH, json=data)

    assert response.status_code == 422
    assert {tuple(e["loc"]) for e in response.json()["detail"]} == {
        ("body", "first_name"),
        ("body", "username"),
        ("body", "hash"),
    }

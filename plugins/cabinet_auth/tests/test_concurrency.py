"""Concurrent logins against PostgreSQL: one user per messenger id, one use per one-time
credential, one session per deep-link token, and never a 500."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_cabinet_auth.sessions import issue_auto_login_token
from subsvc_users.models import User


@pytest.fixture(autouse=True)
def _postgresql_only(db):
    if db.dialect != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite runs one writer at a time, so these races cannot happen there")


async def test_concurrent_first_logins_of_one_person_make_one_user(anon_client, sign_init_data, rows):
    data = sign_init_data({"id": 91001, "first_name": "Race"})

    responses = await asyncio.gather(
        *(anon_client.post("/cabinet/auth/messenger", json={"init_data": data}) for _ in range(6))
    )

    assert [r.status_code for r in responses] == [200] * 6
    assert len({r.json()["user"]["id"] for r in responses}) == 1
    assert len(await rows(User)) == 1
    assert len(await rows(CabinetRefreshToken)) == 6


async def test_a_widget_payload_sent_concurrently_logs_in_once(anon_client, sign_widget, rows):
    data = sign_widget(91002)

    responses = await asyncio.gather(
        *(anon_client.post("/cabinet/auth/messenger/widget", json=data) for _ in range(6))
    )

    assert sorted(r.status_code for r in responses) == [200] + [401] * 5
    assert len(await rows(CabinetRefreshToken)) == 1


async def test_an_auto_login_token_sent_concurrently_logs_in_once(anon_client, insert_user, app, rows):
    user = await insert_user()
    token = issue_auto_login_token(app, user.id)

    responses = await asyncio.gather(
        *(anon_client.post("/cabinet/auth/login/auto", json={"token": token}) for _ in range(5))
    )

    assert sorted(r.status_code for r in responses) == [200] + [401] * 4
    assert len(await rows(CabinetRefreshToken)) == 1


async def test_concurrent_polls_of_a_confirmed_deep_link_log_in_once(
    anon_client, client, insert_user, rows, monkeypatch, app
):
    settings = app.state.settings_of["cabinet_auth"]
    app.state.settings_of["cabinet_auth"] = settings.model_copy(update={"BOT_USERNAME": "bot"})
    await insert_user(messenger_id=91003)
    token = (await anon_client.post("/cabinet/auth/deeplink/request")).json()["token"]
    assert (
        await client.post("/auth/deeplink/confirm", json={"token": token, "messenger_id": 91003})
    ).is_success

    responses = await asyncio.gather(
        *(anon_client.post("/cabinet/auth/deeplink/poll", json={"token": token}) for _ in range(5))
    )

    assert sorted(r.status_code for r in responses) == [200] + [410] * 4
    assert len(await rows(CabinetRefreshToken)) == 1

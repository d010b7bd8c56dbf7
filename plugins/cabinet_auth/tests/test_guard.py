"""Authentication of cabinet requests (the user's row decides) and the caller's standing."""

from __future__ import annotations

import pytest
from sqlalchemy import update
from subsvc_users.models import User

from subsvc.auth.principal import Grants
from subsvc.testing import ADMIN_MESSENGER_ID

ME = "/cabinet/auth/me"
WHOAMI = "/cabinet/admin/probe/whoami"


async def test_me_answers_the_cabinet_user(anon_client, insert_user, app, auth_header):
    user = await insert_user(
        username="neo", balance_kopeks=12345, email="neo@example.org", email_verified=True
    )

    response = await anon_client.get(ME, headers=auth_header(app.state.jwt.access_token(user.id)))

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == user.id and body["username"] == "neo"
    assert (body["balance_kopeks"], body["balance_rubles"]) == (12345, 123.45)
    assert (body["email"], body["email_verified"]) == ("neo@example.org", True)


async def test_without_credentials_401(anon_client):
    missing = await anon_client.get(ME)
    wrong_scheme = await anon_client.get(ME, headers={"Authorization": "Basic abc"})

    assert missing.status_code == 401
    assert missing.json() == {"detail": "Authentication required"}
    assert missing.headers["www-authenticate"] == "Bearer"
    assert wrong_scheme.status_code == 401


async def test_a_token_of_a_user_that_is_gone_is_404(anon_client, app, auth_header):
    response = await anon_client.get(ME, headers=auth_header(app.state.jwt.access_token(99999)))
    huge = await anon_client.get(ME, headers=auth_header(app.state.jwt.access_token(2**40)))

    assert response.status_code == 404
    assert response.json() == {"detail": "User not found"}
    assert huge.status_code == 404


async def test_blocked_and_deleted_users_are_refused_at_once(anon_client, insert_user, app, auth_header, db):
    user = await insert_user()
    token = app.state.jwt.access_token(user.id)
    assert (await anon_client.get(ME, headers=auth_header(token))).status_code == 200

    async with db.session() as session:
        await session.exec(update(User).where(User.id == user.id).values(status="blocked"))
        await session.commit()
    blocked = await anon_client.get(ME, headers=auth_header(token))
    async with db.session() as session:
        await session.exec(update(User).where(User.id == user.id).values(status="deleted"))
        await session.commit()
    deleted = await anon_client.get(ME, headers=auth_header(token))

    assert blocked.status_code == 403
    assert blocked.json() == {"detail": "User account is not active"}
    assert deleted.status_code == 403
    detail = deleted.json()["detail"]
    assert detail["code"] == "account_deleted" and detail["message"]


@pytest.mark.parametrize(
    ("fields", "is_admin"),
    [
        ({"messenger_id": ADMIN_MESSENGER_ID}, True),
        ({"email": "boss@example.org", "email_verified": True}, True),
        ({"email": "boss@example.org", "email_verified": True, "email_verification_source": "cabinet"}, True),
        (
            {"email": "boss@example.org", "email_verified": True, "email_verification_source": "oauth_vk"},
            False,
        ),
        ({"email": "boss@example.org", "email_verified": False}, False),
        ({}, False),
    ],
)
@pytest.mark.parametrize("subsvc_settings_overrides", [{"ADMIN_EMAILS": ["Boss@Example.org"]}])
async def test_administrators_come_from_the_users_row(
    anon_client, insert_user, app, auth_header, grants, fields, is_admin
):
    user = await insert_user(**fields)
    token = app.state.jwt.access_token(user.id, messenger_id=ADMIN_MESSENGER_ID)  # claims do not count

    whoami = await anon_client.get(WHOAMI, headers=auth_header(token))
    flag = await anon_client.get(ME + "/is-admin", headers=auth_header(token))
    permissions = await anon_client.get(ME + "/permissions", headers=auth_header(token))

    assert flag.json() == {"is_admin": is_admin}
    if is_admin:
        assert whoami.status_code == 200
        assert whoami.json() == {"user_id": user.id, "is_admin": True}
        assert permissions.json() == {"permissions": ["*:*"], "roles": ["superadmin"], "role_level": 1000}
    else:
        assert whoami.status_code == 403
        assert permissions.json() == {"permissions": [], "roles": [], "role_level": 0}


async def test_role_holders_are_admins_with_their_grants(anon_client, insert_user, app, auth_header, grants):
    user = await insert_user()
    grants[user.id] = Grants(roles=("Moderator",), permissions=("users:read", "users:block"), level=50)
    token = app.state.jwt.access_token(user.id)

    flag = await anon_client.get(ME + "/is-admin", headers=auth_header(token))
    permissions = await anon_client.get(ME + "/permissions", headers=auth_header(token))

    assert flag.json() == {"is_admin": True}
    assert permissions.json() == {
        "permissions": ["users:read", "users:block"],
        "roles": ["Moderator"],
        "role_level": 50,
    }


async def test_env_admin_tokens_carry_every_permission(anon_client, sign_init_data, app):
    response = await anon_client.post(
        "/cabinet/auth/messenger", json={"init_data": sign_init_data({"id": ADMIN_MESSENGER_ID})}
    )

    claims = app.state.jwt.verify(response.json()["access_token"], "access")
    assert (claims["permissions"], claims["roles"], claims["role_level"]) == (["*:*"], ["superadmin"], 1000)

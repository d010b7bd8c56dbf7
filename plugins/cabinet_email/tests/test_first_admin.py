"""The first administrator (issue 21 item 4): an `ADMIN_EMAILS` address registers and verifies
like anyone and is an administrator once verified; or the operator runs
`subsvc admin create --email E`."""

from __future__ import annotations

import asyncio
import io

import pytest
from subsvc_users.models import User

from subsvc import cli
from subsvc.services import services

PASSWORD = "correct horse battery"
ROOT = "root@example.com"
REGISTER = "/cabinet/auth/email/register/standalone"
LINK = "/cabinet/auth/email/register"
VERIFY = "/cabinet/auth/email/verify"
LOGIN = "/cabinet/auth/email/login"
IS_ADMIN = "/cabinet/auth/me/is-admin"

pytestmark = pytest.mark.parametrize("subsvc_settings_overrides", [{"ADMIN_EMAILS": [ROOT]}])


async def _is_admin(anon_client, access_token: str) -> bool:
    response = await anon_client.get(IS_ADMIN, headers={"Authorization": f"Bearer {access_token}"})
    assert response.status_code == 200, response.text
    return bool(response.json()["is_admin"])


async def test_an_admin_address_registers_verifies_and_logs_in_as_administrator(anon_client, smtp_sink):
    registered = await anon_client.post(REGISTER, json={"email": "Root@Example.com", "password": PASSWORD})
    assert registered.status_code == 200, registered.text
    assert registered.json()["requires_verification"] is True

    early = await anon_client.post(LOGIN, json={"email": ROOT, "password": PASSWORD})
    assert early.status_code == 403  # not verified yet: no login, no rights

    verified = await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert verified.status_code == 200, verified.text
    assert await _is_admin(anon_client, verified.json()["access_token"])

    login = await anon_client.post(LOGIN, json={"email": ROOT, "password": PASSWORD})
    assert login.status_code == 200, login.text
    assert await _is_admin(anon_client, login.json()["access_token"])
    claims_token = login.json()["access_token"]
    permissions = await anon_client.get(
        "/cabinet/auth/me/permissions", headers={"Authorization": f"Bearer {claims_token}"}
    )
    assert permissions.json() == {"permissions": ["*:*"], "roles": ["superadmin"], "role_level": 1000}


async def test_an_admin_address_verified_without_mail_gives_no_rights(anon_client, configure):
    configure(CABINET_EMAIL_VERIFICATION_ENABLED=False)
    registered = await anon_client.post(REGISTER, json={"email": ROOT, "password": PASSWORD})
    assert registered.status_code == 200, registered.text
    login = await anon_client.post(LOGIN, json={"email": ROOT, "password": PASSWORD})
    assert login.status_code == 200
    assert not await _is_admin(anon_client, login.json()["access_token"])  # nobody proved the inbox


async def test_an_admin_address_is_linked_like_any_other(anon_client, make_user, bearer, smtp_sink):
    user = await make_user(messenger_id=31337)
    linked = await anon_client.post(LINK, json={"email": ROOT, "password": PASSWORD}, headers=bearer(user))
    assert linked.status_code == 200, linked.text
    assert linked.json()["message"] == "Verification email sent"
    verified = await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert verified.status_code == 200
    assert verified.json()["user"]["id"] == user.id
    assert await _is_admin(anon_client, verified.json()["access_token"])


@pytest.fixture
def cli_env(app, subsvc_settings, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The environment of an operator's shell: the test app's database and plugins."""
    monkeypatch.setenv("DATABASE_URL", subsvc_settings.DATABASE_URL)
    monkeypatch.setenv("ADMIN_EMAILS", ROOT)
    monkeypatch.setenv(
        "SUBSVC_PLUGINS",
        ",".join(info.name for info in services(app).plugins.enabled if "." not in info.name),
    )
    monkeypatch.setenv("CABINET_JWT_SECRET", subsvc_settings.CABINET_JWT_SECRET or "x" * 48)
    return monkeypatch


def _run_cli(monkeypatch: pytest.MonkeyPatch, email: str, stdin: str) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return cli.main(["admin", "create", "--email", email, "--password-stdin"])


async def test_the_cli_gives_an_admin_address_a_password(anon_client, cli_env, capsys, rows):
    status = await asyncio.to_thread(_run_cli, cli_env, "ROOT@example.com", PASSWORD + "\n")
    assert status == 0
    out = capsys.readouterr().out
    (user,) = await rows(User)
    assert out.strip() == (
        f"administrator {ROOT}: account {user.id} created, e-mail verified; "
        "log in with POST /cabinet/auth/email/login"
    )
    assert (user.email, user.email_verified, user.email_verification_source, user.auth_type) == (
        ROOT,
        True,
        "admin_override",
        "email",
    )
    login = await anon_client.post(LOGIN, json={"email": ROOT, "password": PASSWORD})
    assert login.status_code == 200, login.text
    assert await _is_admin(anon_client, login.json()["access_token"])

    # again: the same account, a new password
    status = await asyncio.to_thread(_run_cli, cli_env, ROOT, "another password\n")
    assert status == 0 and "updated" in capsys.readouterr().out
    relogin = await anon_client.post(LOGIN, json={"email": ROOT, "password": "another password"})
    assert relogin.status_code == 200 and relogin.json()["user"]["id"] == user.id


async def test_the_cli_refuses_other_addresses_and_short_passwords(cli_env, capsys, rows):
    other = await asyncio.to_thread(_run_cli, cli_env, "eve@example.com", PASSWORD + "\n")
    assert other == 1
    assert "eve@example.com is not in ADMIN_EMAILS" in capsys.readouterr().err
    short = await asyncio.to_thread(_run_cli, cli_env, ROOT, "short\n")
    assert short == 1
    assert "8 to 128 characters" in capsys.readouterr().err
    assert await rows(User) == []

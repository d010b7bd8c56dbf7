"""Run cabinet_auth with the plugins it needs; sign messenger login data like the messenger does."""

from __future__ import annotations

import json
import time
import types
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pytest
from pydantic import BaseModel
from subsvc_cabinet_auth.messenger import init_data_secret, sign, widget_secret

from subsvc.api import Router
from subsvc.auth.principal import Grants, Principal
from subsvc.hookspecs import hookimpl

BOT_TOKEN = "123456:TEST-bot-token-for-signatures"


# --- a stand-in for the RBAC plugin: grants per user id, and one permission-checked route ---

GRANTS: dict[int, Grants] = {}
probe_router = Router(area="cabinet-admin", tag="probe")


class Whoami(BaseModel):
    user_id: int
    is_admin: bool


@probe_router.get("/cabinet/admin/probe/whoami", permission="users:read")
async def whoami(principal: Principal) -> Whoami:
    return Whoami(user_id=principal.id, is_admin=principal.is_admin)


def _user_grants(session: Any, user_id: int) -> Grants | None:
    return GRANTS.get(user_id)


grants_probe = types.ModuleType("cabinet_auth_grants_probe")
grants_probe.PLUGIN_NAME = "grants_probe"  # type: ignore[attr-defined]
grants_probe.user_grants = hookimpl(_user_grants)  # type: ignore[attr-defined]
grants_probe.register_routes = hookimpl(lambda: probe_router.endpoints)  # type: ignore[attr-defined]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["cabinet_auth", grants_probe]


@pytest.fixture
def grants() -> Any:
    """``grants[user_id] = Grants(...)``: what the ``user_grants`` hook answers (reset per test)."""
    GRANTS.clear()
    yield GRANTS
    GRANTS.clear()


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    return {"BOT_TOKEN": BOT_TOKEN}


def init_data(
    user: dict[str, Any] | None = None,
    *,
    auth_date: int | None = None,
    token: str = BOT_TOKEN,
    extra: dict[str, str] | None = None,
) -> str:
    """Mini-application init data as the messenger signs it."""
    fields: dict[str, str] = {
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        **(extra or {}),
    }
    if user is not None:
        fields["user"] = json.dumps(user, separators=(",", ":"))
    fields["hash"] = sign(init_data_secret(token), fields)
    return urlencode(fields)


def widget(
    messenger_id: int = 555_000_001,
    *,
    auth_date: int | None = None,
    token: str = BOT_TOKEN,
    **fields: Any,
) -> dict[str, Any]:
    """Login-widget fields as the widget hands them over, signed."""
    data: dict[str, Any] = {
        "id": messenger_id,
        "first_name": "Wanda",
        "username": "wanda",
        "auth_date": int(time.time()) if auth_date is None else auth_date,
        **fields,
    }
    data["hash"] = sign(widget_secret(token), {k: v for k, v in data.items() if v is not None})
    return data


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def auth_header() -> Callable[[str], dict[str, str]]:
    """``auth_header(token)``: the ``Authorization: Bearer`` header."""
    return bearer


@pytest.fixture
def sign_init_data() -> Callable[..., str]:
    """``sign_init_data({"id": 1, ...}, auth_date=..., token=...)``: signed init data."""
    return init_data


@pytest.fixture
def sign_widget() -> Callable[..., dict[str, Any]]:
    """``sign_widget(messenger_id, auth_date=..., **fields)``: signed login-widget fields."""
    return widget

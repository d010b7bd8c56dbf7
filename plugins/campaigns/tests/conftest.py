"""Run the campaigns plugin with the cabinet's messenger login (its registrations carry the
campaign slug); sign the messenger's init data."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pytest
from subsvc_cabinet_auth.messenger import init_data_secret, sign

BOT_TOKEN = "123456:TEST-bot-token-for-signatures"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["campaigns", "cabinet_auth", "billing", "tariffs", "servers", "subscriptions"]


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    return {"BOT_TOKEN": BOT_TOKEN}


def init_data(user: dict[str, Any]) -> str:
    """Mini-application init data for ``user`` as the messenger signs it."""
    fields = {"auth_date": str(int(time.time())), "query_id": "AAHdF6IQAAAAAN0XohDhrOrc"}
    fields["user"] = json.dumps(user, separators=(",", ":"))
    fields["hash"] = sign(init_data_secret(BOT_TOKEN), fields)
    return urlencode(fields)


@pytest.fixture
def sign_init_data() -> Callable[[dict[str, Any]], str]:
    return init_data

"""Run bulk_actions with rbac (permission refusals, the audit log); give tests bulk users and
groups as rows (tariffs: the tariffs kit's ``make_tariff``), the request's helpers and a
parser of the SSE stream."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from subsvc_promo_groups.api import PromoGroup
from subsvc_rbac.testing import fresh_audit_log, permission_holder  # noqa: F401 - fixtures
from subsvc_users.testing import insert_users

from subsvc.db import Database
from subsvc.testing import set_env, stored

PLUGINS = ["bulk_actions", "rbac"]
EXECUTE = "/cabinet/admin/bulk/execute"
FIRST_CHAT = 600_000_000


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def bulk_env() -> dict[str, Any]:
    """Plugin settings of a test module (override it)."""
    return {}


@pytest.fixture(autouse=True)
def _fast_env(monkeypatch: pytest.MonkeyPatch, bulk_env: dict[str, Any]) -> None:
    """No periodic upkeep (a test starts what it needs), quick polls."""
    set_env(monkeypatch, {"BULK_ACTIONS_UPKEEP_SECONDS": 0, "BULK_ACTIONS_POLL_SECONDS": 0.05, **bulk_env})


@pytest.fixture
def users(db: Database) -> Callable[..., Awaitable[list[int]]]:
    """``await users(count, **fields)``: bare user rows in one INSERT; their ids."""
    first = iter(range(FIRST_CHAT, FIRST_CHAT + 10_000_000, 100_000))

    async def make(count: int, **fields: Any) -> list[int]:
        start = next(first)
        return await insert_users(
            db, [{"messenger_id": start + i, "username": f"u{start + i}", **fields} for i in range(count)]
        )

    return make


@pytest.fixture
def make_group(db: Database) -> Callable[..., Awaitable[PromoGroup]]:
    async def make(**fields: Any) -> PromoGroup:
        fields.setdefault("name", "VIP")
        return await stored(db, PromoGroup(**fields))

    return make


def sse_events(text: str) -> list[dict[str, Any]]:
    """The ``data:`` lines of an event stream, parsed as a client does (blank lines apart)."""
    events = []
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if line.startswith("data: ")]
        if lines:
            events.append(json.loads("\n".join(line[6:] for line in lines)))
    return events


async def execute(
    http: httpx2.AsyncClient, action: str, *, key: str | None = None, stream: bool = False, **body: Any
) -> httpx2.Response:
    headers = {"Idempotency-Key": key} if key else {}
    params = {"stream": "true"} if stream else {}
    return await http.post(EXECUTE, json={"action": action, **body}, headers=headers, params=params)

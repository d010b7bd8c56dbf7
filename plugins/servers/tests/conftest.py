"""Run servers with the plugins it needs, plus this test package's fake panel and tariffs
(a plugin module whose hooks answer what a test puts in it); users, subscriptions and
promo groups for tests."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import httpx2
import pytest
from sqlmodel import select
from starlette.applications import Starlette
from subsvc_servers.models import ServerPromoGroup
from subsvc_servers.panel import PanelError, PanelSquad
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.service import new_short_id
from subsvc_users.models import User

from subsvc.db import Database, utcnow
from subsvc.hookspecs import hookimpl

MakeSubscription = Callable[..., Awaitable[Subscription]]
MakeServer = Callable[..., Awaitable[dict[str, Any]]]

PLUGIN_NAME = "servers_fakes"
REQUIRES = ("servers",)
BASE_PLUGINS = ["servers"]


class FakePanel:
    """The panel's squads, kept in memory; ``failure`` makes every call fail."""

    def __init__(self) -> None:
        self.squads_listed: list[PanelSquad] = []
        self.failure: str | None = None
        self.calls = 0

    async def squads(self) -> Sequence[PanelSquad]:
        self.calls += 1
        if self.failure:
            raise PanelError(self.failure)
        return list(self.squads_listed)


class Fakes:
    """What this module's hooks answer: a panel (or none) and tariff names per squad."""

    def __init__(self) -> None:
        self.panel: FakePanel | None = None
        self.tariffs: dict[str, list[str]] = {}


FAKES = Fakes()


@hookimpl
def servers_panel(app: Starlette) -> FakePanel | None:
    return FAKES.panel


@hookimpl
async def servers_tariffs_using(squad_uuid: str) -> list[str]:
    return FAKES.tariffs.get(squad_uuid, [])


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return [*BASE_PLUGINS, sys.modules[__name__]]


@pytest.fixture(autouse=True)
def fakes() -> Fakes:
    """No panel and no tariffs until a test puts some in."""
    FAKES.panel = None
    FAKES.tariffs = {}
    return FAKES


@pytest.fixture
def make_subscription(db: Database) -> MakeSubscription:
    """``await make_subscription(user, ["squad"], status="active", days=30, is_trial=False)``:
    a subscription row (negative ``days``: ended that long ago)."""

    async def make(
        user: User,
        squads: Sequence[str],
        *,
        status: str = "active",
        days: int = 30,
        is_trial: bool = False,
        created_at: datetime | None = None,
    ) -> Subscription:
        now = utcnow()
        assert user.id is not None
        subscription = Subscription(
            user_id=user.id,
            status=status,
            is_trial=is_trial,
            start_date=now - timedelta(days=1),
            end_date=now + timedelta(days=days),
            connected_squads=list(squads),
            short_id=new_short_id(),
            created_at=created_at or now,
            updated_at=now,
        )
        async with db.session() as session:
            session.add(subscription)
            await session.commit()
        return subscription

    return make


@pytest.fixture
def make_server(client: httpx2.AsyncClient) -> MakeServer:
    """``await make_server("squad-1", displayName="DE", priceKopeks=100)``: created through
    ``POST /servers``; answers the server record."""

    async def make(squad_uuid: str, **fields: Any) -> dict[str, Any]:
        body = {
            "squadUuid": squad_uuid,
            "displayName": fields.pop("displayName", squad_uuid.upper()),
            **fields,
        }
        response = await client.post("/servers", json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    return make


@pytest.fixture
def make_group(client: httpx2.AsyncClient) -> Callable[[str], Awaitable[dict[str, Any]]]:
    async def make(name: str) -> dict[str, Any]:
        response = await client.post("/promo-groups", json={"name": name})
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    return make


@pytest.fixture
def links(db: Database) -> Callable[[], Awaitable[list[tuple[int, int]]]]:
    """The promo-group links as ``(server_id, promo_group_id)``, sorted."""

    async def read() -> list[tuple[int, int]]:
        async with db.session() as session:
            found = (await session.exec(select(ServerPromoGroup))).all()
        return sorted((link.server_squad_id, link.promo_group_id) for link in found)

    return read

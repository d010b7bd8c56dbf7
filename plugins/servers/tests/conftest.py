"""Run servers with the plugins it needs, plus this test package's fake panel and tariffs
(a plugin module whose hooks answer what a test puts in it); users, subscriptions and
promo groups for tests."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
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
from subsvc_users.schemas import UserCreateRequest
from subsvc_users.service import create_user

from subsvc.db import Database, utcnow
from subsvc.hookspecs import hookimpl

MakeUser = Callable[..., Awaitable[User]]
MakeSubscription = Callable[..., Awaitable[Subscription]]
MakeServer = Callable[..., Awaitable[dict[str, Any]]]

PLUGIN_NAME = "servers_fakes"
REQUIRES = ("servers",)
BASE_PLUGINS = [
    "subsvc_promo_groups.plugin",
    "subsvc_users.plugin",
    "subsvc_subscriptions.plugin",
    "subsvc_servers.plugin",
]


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
def make_user(app: Starlette, db: Database) -> MakeUser:
    """``await make_user(first_name="Ann")``: a committed user made by ``create_user``."""
    counter = iter(range(1, 1_000_000))

    async def make(**fields: Any) -> User:
        fields.setdefault("messenger_id", 700_000_000 + next(counter))
        async with db.session() as session:
            user = await create_user(app, session, UserCreateRequest(**fields))
            await session.commit()
        return user

    return make


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
async def admin(app: Starlette, admin_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client of the settings administrator (``ADMIN_IDS``), for the cabinet admin routes."""
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {admin_token}"}
    ) as http:
        yield http


@pytest.fixture
def wait_for() -> Callable[..., Awaitable[None]]:
    """``await wait_for(async_predicate)``: poll until it holds (work done after a response)."""

    async def wait(predicate: Callable[[], Awaitable[bool]], seconds: float = 5.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not await predicate():
            if loop.time() > deadline:
                raise AssertionError("condition not reached in time")
            await asyncio.sleep(0.02)

    return wait


@pytest.fixture
def links(db: Database) -> Callable[[], Awaitable[list[tuple[int, int]]]]:
    """The promo-group links as ``(server_id, promo_group_id)``, sorted."""

    async def read() -> list[tuple[int, int]]:
        async with db.session() as session:
            found = (await session.exec(select(ServerPromoGroup))).all()
        return sorted((link.server_squad_id, link.promo_group_id) for link in found)

    return read

"""Run servers with the plugins it needs, plus this test package's fake panel and tariffs
(a plugin module whose hooks answer what a test puts in it); servers and promo groups for
tests (users and subscriptions: the users' and subscriptions' kits)."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx2
import pytest
from sqlmodel import select
from starlette.applications import Starlette
from subsvc_rbac.testing import permission_holder  # noqa: F401 - fixture (tests with rbac)
from subsvc_servers.models import ServerPromoGroup
from subsvc_servers.panel import PanelError, PanelSquad

from subsvc.db import Database
from subsvc.hookspecs import hookimpl
from subsvc.testing import created

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
def make_server(client: httpx2.AsyncClient) -> MakeServer:
    """``await make_server("squad-1", displayName="DE", priceKopeks=100)``: created through
    ``POST /servers``; answers the server record."""

    async def make(squad_uuid: str, **fields: Any) -> dict[str, Any]:
        name = fields.pop("displayName", squad_uuid.upper())
        return await created(client, "/servers", {"squadUuid": squad_uuid, "displayName": name, **fields})

    return make


@pytest.fixture
def make_group(client: httpx2.AsyncClient) -> Callable[[str], Awaitable[dict[str, Any]]]:
    """``await make_group("VIP")``: a promo group made through ``POST /promo-groups``."""
    return lambda name: created(client, "/promo-groups", {"name": name})


@pytest.fixture
def links(db: Database) -> Callable[[], Awaitable[list[tuple[int, int]]]]:
    """The promo-group links as ``(server_id, promo_group_id)``, sorted."""

    async def read() -> list[tuple[int, int]]:
        async with db.session() as session:
            found = (await session.exec(select(ServerPromoGroup))).all()
        return sorted((link.server_squad_id, link.promo_group_id) for link in found)

    return read

"""Run tariffs with the plugins it needs; give tests an administrator's client, users,
servers, promo groups, subscriptions and a look at the rows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from sqlmodel import col, select
from subsvc_promo_groups.models import PromoGroup
from subsvc_servers.models import Server
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.testing import MakeSubscription
from subsvc_tariffs.models import TariffPromoGroup
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.testing import stored

PLUGINS = ["tariffs"]
BASE = "/cabinet/admin/tariffs"

Make = Callable[..., Awaitable[Any]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def make_tariff(admin: httpx2.AsyncClient) -> Make:
    """``await make_tariff(name="Pro", period_prices=[...])``: POST /cabinet/admin/tariffs (200)."""
    counter = iter(range(1, 1_000_000))

    async def create(**fields: Any) -> dict[str, Any]:
        fields.setdefault("name", f"Tariff {next(counter)}")
        response = await admin.post(BASE, json=fields)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    return create


@pytest.fixture
def make_server(db: Database) -> Make:
    """``await make_server(display_name="NL", sort_order=1)``: a server row (servers plugin)."""
    counter = iter(range(1, 1_000_000))

    async def create(**fields: Any) -> Server:
        number = next(counter)
        fields.setdefault("squad_uuid", f"00000000-0000-4000-8000-{number:012d}")
        fields.setdefault("display_name", f"Server {number}")
        return await stored(db, Server(**fields))

    return create


@pytest.fixture
def make_group(db: Database) -> Make:
    """``await make_group(name="VIP", period_discounts={"30": 10})``: a promo group row."""
    counter = iter(range(1, 1_000_000))

    async def create(**fields: Any) -> PromoGroup:
        fields.setdefault("name", f"Group {next(counter)}")
        return await stored(db, PromoGroup(**fields))

    return create


@pytest.fixture
def make_subscription(make_subscription: MakeSubscription, make_user: Make) -> MakeSubscription:
    """``await make_subscription(tariff_id=1, status="active", days=30)``: the subscriptions
    kit's row, of a new user unless ``user`` is given."""

    async def create(*, user: User | None = None, days: float = 30, **fields: Any) -> Subscription:
        return await make_subscription(user or await make_user(), days=days, **fields)

    return create


@pytest.fixture
def restrictions(db: Database) -> Callable[[], Awaitable[list[tuple[int, int]]]]:
    """The ``tariff_promo_groups`` rows as ``(tariff_id, promo_group_id)``, sorted."""

    async def read() -> list[tuple[int, int]]:
        query = select(col(TariffPromoGroup.tariff_id), col(TariffPromoGroup.promo_group_id))
        async with db.session() as session:
            return sorted((row[0], row[1]) for row in (await session.exec(query)).all())

    return read

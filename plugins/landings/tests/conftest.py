"""Run landings with pay_yookassa pointed at its loopback fake (``fake_yookassa``); guests
pay there and YooKassa's notifications complete their purchases.
``@pytest.mark.landings_env(NAME=value)`` changes a setting of the test's app."""

from __future__ import annotations

import itertools
import os
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from subsvc_pay_yookassa.testing import FakeYookassa
from subsvc_tariffs.api import Tariff

from subsvc.db import Database
from subsvc.testing import asgi_transport, marked_env, stored

WEBHOOK = "/webhooks/payments/yookassa"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "landings_env(**values): settings of the test's app")


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["landings", "pay_yookassa"]


@pytest.fixture
def subsvc_settings_overrides(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, fake_yookassa: FakeYookassa
) -> dict[str, Any]:
    for name in os.environ:
        if name.startswith("YOOKASSA_"):
            monkeypatch.delenv(name)
    marked_env(request, monkeypatch, "landings_env", fake_yookassa.env())
    return {}


@pytest.fixture
def make_tariff(db: Database) -> Callable[..., Awaitable[Any]]:
    """``await make_tariff(period_prices={"30": 19900})``: a committed active tariff row."""
    counter = itertools.count(1)

    async def make(**fields: Any) -> Any:
        number = next(counter)
        fields.setdefault("name", f"Tariff {number}")
        fields.setdefault("period_prices", {"30": 19_900, "90": 49_900})
        fields.setdefault("allowed_squads", ["squad-a"])
        fields.setdefault("traffic_limit_gb", 100)
        fields.setdefault("device_limit", 2)
        return await stored(db, Tariff(**fields))

    return make


@pytest.fixture
def make_landing(admin: httpx2.AsyncClient) -> Callable[..., Awaitable[dict[str, Any]]]:
    """``await make_landing(tariff_ids=[...], slug=...)``: a landing page selling by YooKassa."""
    counter = itertools.count(1)

    async def make(tariff_ids: list[int], **fields: Any) -> dict[str, Any]:
        body = {
            "slug": f"promo-{next(counter)}",
            "title": {"ru": "Промо", "en": "Promo"},
            "allowed_tariff_ids": tariff_ids,
            "payment_methods": [{"method_id": "yookassa", "display_name": "Card"}],
            **fields,
        }
        response = await admin.post("/cabinet/admin/landings", json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    return make


@pytest.fixture
def notify(app: Any) -> Callable[[bytes], Awaitable[httpx2.Response]]:
    """``await notify(body)``: a notification posted as YooKassa posts it (from loopback)."""

    async def post(body: bytes) -> httpx2.Response:
        async with httpx2.AsyncClient(transport=asgi_transport(app), base_url="http://testserver") as http:
            return await http.post(WEBHOOK, content=body, headers={"Content-Type": "application/json"})

    return post

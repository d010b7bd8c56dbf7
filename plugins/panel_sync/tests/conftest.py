"""Run panel_sync with the plugins it needs against the loopback fake panel (fixture
``fake_panel`` of the panel plugin), with short retry and poll settings."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.testing import FAST_SYNC

from subsvc.app import create_app
from subsvc.settings import Settings
from subsvc.testing import created, marked_env

PLUGINS = ["panel_sync"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "no_panel: the app has no panel configured")
    config.addinivalue_line("markers", "no_worker: the fixture app runs no job worker")
    config.addinivalue_line("markers", "sync_env(**values): panel_sync settings for the test's app")


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return PLUGINS


@pytest.fixture
def sync_env(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, fake_panel: FakePanel
) -> FakePanel:
    """Short timings, and the panel plugin pointed at the fake (unless ``no_panel``)."""
    values = dict(FAST_SYNC)
    if not request.node.get_closest_marker("no_panel"):
        values.update({**fake_panel.env(), "PANEL_MAX_RETRIES": "0"})
    else:
        monkeypatch.delenv("PANEL_API_URL", raising=False)
        monkeypatch.delenv("PANEL_API_KEY", raising=False)
    marked_env(request, monkeypatch, "sync_env", values)
    return fake_panel


@pytest.fixture
def subsvc_settings_overrides(request: pytest.FixtureRequest, sync_env: FakePanel) -> dict[str, Any]:
    return {"JOBS_WORKER": False} if request.node.get_closest_marker("no_worker") else {}


@pytest.fixture
def panel(sync_env: FakePanel) -> FakePanel:
    """The fake panel the app talks to."""
    return sync_env


@contextlib.asynccontextmanager
async def running(settings: Settings, *, worker: bool = True) -> AsyncIterator[Starlette]:
    """Another app on the same database (a restart, or a second instance)."""
    application = create_app(settings.model_copy(update={"JOBS_WORKER": worker}), plugins=PLUGINS)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
def another_app(
    subsvc_settings: Settings,
) -> Callable[..., contextlib.AbstractAsyncContextManager[Starlette]]:
    return lambda **kw: running(subsvc_settings, **kw)


Make = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def make_subscription(client: httpx2.AsyncClient, api_user: Make) -> Make:
    """``await make_subscription(period_days=30, ...)``: a new user's subscription made through
    the Web API (its record, with the user's ``messenger_id``)."""

    async def make(**fields: Any) -> dict[str, Any]:
        user = await api_user()
        body = {"user_id": user["id"], "period_days": 30, "traffic_limit_gb": 50, "device_limit": 2, **fields}
        return {**await created(client, "/subscriptions", body), "messenger_id": user["messenger_id"]}

    return make


@pytest.fixture
def states(db: Any) -> Callable[[], Awaitable[list[Any]]]:
    """``await states()``: every subscription's sync state row, by subscription id."""
    from sqlmodel import select
    from subsvc_panel_sync.models import PanelSyncState

    async def fetch() -> list[Any]:
        async with db.session() as session:
            query = select(PanelSyncState).order_by(PanelSyncState.subscription_id)  # type: ignore[arg-type]
            return list((await session.exec(query)).all())

    return fetch

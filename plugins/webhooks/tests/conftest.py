"""Run webhooks with billing and the users it requires (their events), short retry settings,
and a loopback receiver: a Starlette app served by uvicorn on 127.0.0.1 that records what it gets."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from subsvc.settings import Settings
from subsvc.testing import created, marked_env
from subsvc.testing_server import LoopbackServer

FAST = {
    "WEBHOOK_RETRY_BASE_SECONDS": "0.05",
    "WEBHOOK_RETRY_FACTOR": "2",
    "WEBHOOK_RETRY_MAX_SECONDS": "0.3",
    "WEBHOOK_RETRY_JITTER": "0.1",
    "WEBHOOK_POLL_SECONDS": "0.2",
    "WEBHOOK_TIMEOUT_SECONDS": "2",
    "WEBHOOK_MAX_ATTEMPTS": "10",
    "WEBHOOK_DEACTIVATE_AFTER_SECONDS": "0",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "webhook_env(**values): webhook settings for the test's app")
    config.addinivalue_line(
        "markers", "own_apps: the test runs apps of its own; the fixture app runs no job worker"
    )


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["billing", "webhooks"]


@pytest.fixture
def webhook_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Short retries (and ``@pytest.mark.webhook_env(...)``) in the environment the app reads."""
    return marked_env(request, monkeypatch, "webhook_env", FAST)


@pytest.fixture
def subsvc_settings_overrides(request: pytest.FixtureRequest, webhook_env: dict[str, str]) -> dict[str, Any]:
    """With ``@pytest.mark.own_apps`` the fixture app (which migrates and empties the database)
    sends nothing, so what the test's own apps do is all that happens."""
    return {"JOBS_WORKER": False} if request.node.get_closest_marker("own_apps") else {}


def with_worker(settings: Settings) -> Settings:
    """The settings of an app that runs the job worker (the fixture app of ``own_apps`` tests
    does not)."""
    return settings.model_copy(update={"JOBS_WORKER": True})


URL = "https://example.com/hooks/subsvc"


async def create(client: httpx2.AsyncClient, **fields: Any) -> dict[str, Any]:
    """A webhook made through ``POST /webhooks`` (201), ``fields`` over a valid body; its record."""
    return await created(
        client, "/webhooks", {"name": "CRM", "url": URL, "event_type": "user.created", **fields}
    )


async def refused(client: httpx2.AsyncClient, url: str) -> dict[str, Any]:
    """The one validation error (422) of making a webhook to ``url``."""
    r = await client.post("/webhooks", json={"name": "n", "url": url, "event_type": "*"})
    assert r.status_code == 422, url
    (error,) = r.json()["detail"]
    assert isinstance(error, dict)
    return error


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    """A loopback webhook receiver. ``plan``: what to answer to the next requests, in order
    (an int status, or ``("sleep", seconds)`` before a 200); then ``status`` (200)."""

    url: str
    requests: list[Received] = field(default_factory=list)
    plan: list[Any] = field(default_factory=list)
    status: int = 200
    gate: asyncio.Event | None = None
    answered: list[float] = field(default_factory=list)

    def reset(self) -> None:
        self.requests.clear()
        self.plan.clear()
        self.answered.clear()
        self.status = 200
        self.gate = None

    async def handle(self, request: Request) -> PlainTextResponse:
        self.requests.append(Received(dict(request.headers), await request.body(), time.monotonic()))
        step = self.plan.pop(0) if self.plan else self.status
        if self.gate is not None:
            await self.gate.wait()
        if isinstance(step, tuple):
            await asyncio.sleep(step[1])
            step = 200
        self.answered.append(time.monotonic())
        return PlainTextResponse(f"answer {step}", status_code=step)


@pytest.fixture(scope="session")
async def _receiver_server() -> AsyncIterator[Receiver]:
    receiver = Receiver(url="")
    app = Starlette(routes=[Route("/hook", receiver.handle, methods=["POST"])])
    async with LoopbackServer(app) as server:
        receiver.url = f"{server.url}/hook"
        yield receiver


@pytest.fixture
def receiver(_receiver_server: Receiver) -> Receiver:
    _receiver_server.reset()
    yield _receiver_server
    if _receiver_server.gate is not None:
        _receiver_server.gate.set()
    _receiver_server.reset()

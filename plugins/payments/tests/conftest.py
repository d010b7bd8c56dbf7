"""Run payments with the plugins it needs and the test provider plugin; ``fail`` ends a payment
unpaid in a session of its own (the other helpers are the kit's, ``subsvc_payments.testing``)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from starlette.applications import Starlette
from subsvc_payments.api import Outcome, mark_failed

from subsvc.db import Database

PROVIDER = "fakepay"


@pytest.fixture
def subsvc_plugins(provider_plugin: ModuleType) -> list[Any]:
    """Payments with the test provider plugin (unconfigured until ``fake_provider`` is used)."""
    return ["payments", provider_plugin]


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    """A pool for the tests whose requests overlap, and patience while the host is busy."""
    return {"DATABASE_POOL_SIZE": 12, "DATABASE_TIMEOUT": 60}


def fake_provider_plugin() -> ModuleType:
    """The test provider plugin (fake_provider.py), loaded once (test modules import nothing
    from each other)."""
    name = "subsvc_payments_tests_fake_provider"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("fake_provider.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def provider_plugin() -> ModuleType:
    """The test provider plugin's module, for ``subsvc_plugins``."""
    return fake_provider_plugin()


@pytest.fixture
def fake_provider() -> Iterator[Any]:
    """The test provider plugin's provider, configured for this test (with
    ``subsvc_plugins`` returning ``["payments", provider_plugin]``)."""
    plugin = fake_provider_plugin()
    plugin.Configured.provider = provider = plugin.FakeProvider()
    yield provider
    plugin.Configured.provider = None


@pytest.fixture
def fail(app: Starlette, db: Database) -> Callable[..., Awaitable[Outcome]]:
    """``await fail("p-1", "canceled")``: an unpaid end processed in its own transaction."""

    async def run(provider_payment_id: str, status: str, reason: str | None = None) -> Outcome:
        async with db.session() as session:
            outcome = await mark_failed(
                app, session, PROVIDER, provider_payment_id, status, reason, {"s": status}
            )
            await session.commit()
            return outcome

    return run

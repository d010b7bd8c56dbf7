"""The end-to-end scenarios every provider plugin passes (subsvc_payments.testing_e2e), run
here on the test provider plugin: over real HTTP, notifications signed as it signs them."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from subsvc_payments.testing_e2e import SCENARIOS


@pytest.fixture
def provider_fake(provider_plugin: ModuleType, fake_provider: Any) -> Any:
    return provider_plugin.FakepayFake(fake_provider)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_end_to_end(scenario, provider_e2e):
    await scenario(provider_e2e)

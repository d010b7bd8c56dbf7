"""The end-to-end scenarios every provider plugin passes (subsvc_payments.testing_e2e), over
real HTTP: the app on loopback, the fake YooKassa beside it, notifications posted as YooKassa
posts them (the forged one from an address outside the allowed sources)."""

from __future__ import annotations

import pytest
from subsvc_pay_yookassa.testing import FakeYookassa, YookassaFake
from subsvc_payments.testing import SCENARIOS


@pytest.fixture
def provider_fake(fake_yookassa: FakeYookassa) -> YookassaFake:
    return YookassaFake(fake_yookassa)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_end_to_end(scenario, provider_e2e):
    await scenario(provider_e2e)

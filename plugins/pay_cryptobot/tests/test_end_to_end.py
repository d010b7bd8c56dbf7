"""The end-to-end scenarios every provider plugin passes (subsvc_payments.testing_e2e), over
real HTTP: our app on loopback, the fake Crypto Pay API beside it, its updates signed as
Crypto Pay signs them."""

from __future__ import annotations

import pytest
from subsvc_payments.testing import SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_end_to_end(scenario, provider_e2e):
    await scenario(provider_e2e)

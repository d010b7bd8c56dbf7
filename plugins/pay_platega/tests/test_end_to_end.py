"""The end-to-end scenarios every provider plugin passes (subsvc_payments.testing_e2e), over
real HTTP: our app and the fake Platega on loopback, callbacks sent as Platega sends them
(merchant headers), each confirmed by reading the transaction from the fake's API."""

from __future__ import annotations

import pytest
from subsvc_payments.testing_e2e import SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_end_to_end(scenario, provider_e2e):
    await scenario(provider_e2e)

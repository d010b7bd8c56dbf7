"""The end-to-end scenarios every provider plugin passes (subsvc_payments.testing_e2e), over
real HTTP: a top-up in Stars, its invoice paid at the fake Bot API, the paid update forwarded
to our endpoint with the webhook secret."""

from __future__ import annotations

import pytest
from subsvc_payments.testing import SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_end_to_end(scenario, provider_e2e):
    await scenario(provider_e2e)

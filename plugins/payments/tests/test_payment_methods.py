"""`GET /cabinet/balance/payment-methods`: the methods of the provider plugins, through the
`payments_providers` hook; this module is a provider plugin whose methods a test sets."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from starlette.applications import Starlette
from subsvc_payments.hookspecs import PaymentMethodInfo

from subsvc.hookspecs import hookimpl

PLUGIN_NAME = "fake_providers"
REQUIRES = ("payments",)
OFFERED: list[list[PaymentMethodInfo] | None] = []
"""What each of this plugin's two answers is (empty: it answers nothing)."""

CARD = PaymentMethodInfo(
    id="fakepay",
    name="Банковская карта",
    min_amount_kopeks=10_000,
    max_amount_kopeks=5_000_000,
    description="Visa, MasterCard, МИР",
    options=[
        {"id": "card", "name": "Карта", "description": None},
        {"id": "sbp", "name": "СБП", "description": None},
    ],
    quick_amounts=(50_000, 100_000),
)
STARS = PaymentMethodInfo(id="stars", name="Stars", min_amount_kopeks=100, max_amount_kopeks=1_000_000)


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    assert isinstance(app, Starlette)
    return OFFERED.pop(0) if OFFERED else None


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["payments", sys.modules[__name__]]


@pytest.fixture(autouse=True)
def nothing_offered():
    OFFERED.clear()
    yield
    OFFERED.clear()


async def test_no_configured_provider_is_an_empty_list(member):
    response = await member.get("/cabinet/balance/payment-methods")
    assert (response.status_code, response.json()) == (200, [])
    OFFERED.append([])
    assert (await member.get("/cabinet/balance/payment-methods")).json() == []


async def test_the_providers_methods_in_the_contracts_shape(member):
    OFFERED.append(
        [CARD, STARS, PaymentMethodInfo(id="fakepay", name="again", min_amount_kopeks=1, max_amount_kopeks=2)]
    )
    response = await member.get("/cabinet/balance/payment-methods")
    assert response.status_code == 200
    assert response.json() == [
        {
            "id": "fakepay",
            "name": "Банковская карта",
            "description": "Visa, MasterCard, МИР",
            "min_amount_kopeks": 10_000,
            "max_amount_kopeks": 5_000_000,
            "is_available": True,
            "options": [
                {"id": "card", "name": "Карта", "description": None},
                {"id": "sbp", "name": "СБП", "description": None},
            ],
            "quick_amounts": [50_000, 100_000],
            "open_url_direct": False,
        },
        {
            "id": "stars",
            "name": "Stars",
            "description": None,
            "min_amount_kopeks": 100,
            "max_amount_kopeks": 1_000_000,
            "is_available": True,
            "options": None,
            "quick_amounts": [],
            "open_url_direct": False,
        },
    ]


async def test_it_needs_a_cabinet_user(anon_client, client):
    assert (await anon_client.get("/cabinet/balance/payment-methods")).status_code == 401
    assert (
        await client.get("/cabinet/balance/payment-methods")
    ).status_code == 401  # an API key is no cabinet login

"""The classic tables and the default group's periods read from the environment."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from subsvc_pricing.api import PricingSettings


def test_defaults_are_the_notes_tables():
    settings = PricingSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.SALES_MODE == "tariffs"
    assert settings.CLASSIC_PERIOD_PRICES[30] == 9900 and settings.CLASSIC_TRAFFIC_PRICES[0] == 20000
    assert settings.CLASSIC_RENEWAL_PERIODS == [30, 90, 180]
    assert settings.BASE_PROMO_GROUP_PERIOD_DISCOUNTS == {}


def test_tables_read_as_key_value_lists(monkeypatch):
    monkeypatch.setenv("CLASSIC_PERIOD_PRICES", " 30:100, 90 : 250 ,")
    monkeypatch.setenv("BASE_PROMO_GROUP_PERIOD_DISCOUNTS", "30:5,90:10")
    monkeypatch.setenv("CLASSIC_RENEWAL_PERIODS", "30, 60")
    settings = PricingSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.CLASSIC_PERIOD_PRICES == {30: 100, 90: 250}
    assert settings.BASE_PROMO_GROUP_PERIOD_DISCOUNTS == {30: 5, 90: 10}
    assert settings.CLASSIC_RENEWAL_PERIODS == [30, 60]


@pytest.mark.parametrize("value", ["30", "30:x", "-30:100", "30:-1"])
def test_a_bad_table_is_refused(monkeypatch, value):
    monkeypatch.setenv("CLASSIC_PERIOD_PRICES", value)
    with pytest.raises(ValidationError):
        PricingSettings(_env_file=None)  # type: ignore[call-arg]


async def test_the_plugin_runs(app, client):
    assert PricingSettings.of(app).SALES_MODE == "tariffs"
    plugins = {p["name"]: p for p in (await client.get("/plugins")).json()}
    assert plugins["pricing"]["enabled"] is True

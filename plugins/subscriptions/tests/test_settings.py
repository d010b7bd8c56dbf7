"""The plugin's settings: the reference's defaults, read from the environment, validated."""

from __future__ import annotations

import pytest
from subsvc_subscriptions.settings import SubscriptionSettings

from subsvc.settings import SettingsError, load_settings


def test_defaults_are_the_references(monkeypatch):
    for name in SubscriptionSettings.model_fields:
        monkeypatch.delenv(name, raising=False)
    settings = SubscriptionSettings(_env_file=None)
    assert (settings.TRIAL_DURATION_DAYS, settings.TRIAL_TRAFFIC_LIMIT_GB, settings.TRIAL_DEVICE_LIMIT) == (
        3,
        10,
        2,
    )
    assert (settings.DEFAULT_TRAFFIC_LIMIT_GB, settings.DEFAULT_DEVICE_LIMIT, settings.MAX_DEVICES_LIMIT) == (
        100,
        1,
        0,
    )
    assert (settings.DEFAULT_AUTOPAY_ENABLED, settings.DEFAULT_AUTOPAY_DAYS_BEFORE) == (False, 3)
    assert settings.TRAFFIC_PURCHASE_DAYS == 30
    assert settings.TRIAL_SQUAD_UUIDS == settings.DEFAULT_SQUAD_UUIDS == []


def test_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("TRIAL_DURATION_DAYS", "14")
    monkeypatch.setenv("TRIAL_SQUAD_UUIDS", " a , b,,")
    monkeypatch.setenv("MAX_DEVICES_LIMIT", "6")
    settings = SubscriptionSettings(_env_file=None)
    assert (settings.TRIAL_DURATION_DAYS, settings.TRIAL_SQUAD_UUIDS, settings.MAX_DEVICES_LIMIT) == (
        14,
        ["a", "b"],
        6,
    )


def test_registered_for_the_app(app):
    assert isinstance(app.state.settings_of["subscriptions"], SubscriptionSettings)


@pytest.mark.parametrize(("name", "value"), [("TRIAL_DURATION_DAYS", "0"), ("MAX_DEVICES_LIMIT", "-1")])
def test_an_invalid_value_names_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=name):
        load_settings(SubscriptionSettings)

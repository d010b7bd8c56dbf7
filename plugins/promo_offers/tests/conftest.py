"""Run promo_offers with the plugins it needs; the administrator's and the user's clients with
users 1 and 2 existing (users and subscriptions come from the users' and subscriptions' kits)."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_users.testing_clients import admin_with_users, member_with_users  # noqa: F401 - fixtures

from subsvc.testing import set_env

PLUGINS = ["promo_offers"]
ADMIN = "/cabinet/admin/promo-offers"
WEB = "/promo-offers"
CABINET = "/cabinet/promo"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture(autouse=True)
def _no_periodic_upkeep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run the upkeep themselves (``sender.upkeep``) instead of every minute."""
    set_env(monkeypatch, {"PROMO_OFFERS_UPKEEP_SECONDS": 0})

"""An administrator's restriction of a user's subscription purchases (cabinet_admin_users,
through ``sales_purchases_restricted``): 403 with the reference's text, nothing changed."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["sales", "panel_sync", "cabinet_admin_users"]


@pytest.mark.sales_env(SALES_MODE="tariffs")
async def test_a_restricted_user_cannot_buy(admin, buyer, make_tariff):
    tariff = await make_tariff()
    async with buyer(balance_kopeks=50_000) as (user, http):
        set_it = await admin.post(
            f"/cabinet/admin/users/{user.id}/restrictions", json={"restriction_subscription": True}
        )
        assert set_it.status_code == 200, set_it.text
        body = {"tariff_id": tariff.id, "period_days": 30}
        refused = await http.post("/cabinet/subscription/purchase-tariff", json=body)
        assert (refused.status_code, refused.json()) == (
            403,
            {"detail": "Subscription purchases are restricted for this account"},
        )
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 50_000
        lifted = await admin.post(
            f"/cabinet/admin/users/{user.id}/restrictions", json={"restriction_subscription": False}
        )
        assert lifted.status_code == 200
        assert (await http.post("/cabinet/subscription/purchase-tariff", json=body)).status_code == 200

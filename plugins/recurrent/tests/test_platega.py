"""Platega's recurring SBP operations (release 4.1.0): 503 while Platega is not configured;
configured, the subscription's state reads "not available", enabling and purchasing are 503
and change nothing (the balance autopay stays on), cancelling finds nothing to stop; another
user's subscription is 404."""

from __future__ import annotations

import pytest
from sqlalchemy import update
from sqlmodel import col
from subsvc_promo_groups import models as _promo_groups  # noqa: F401 - users refer to promo_groups: keep the metadata whole
from subsvc_subscriptions.api import Subscription, SubscriptionSettings

BASE = "/cabinet/subscription/platega-recurrent"
NOT_CONFIGURED = {"detail": "Platega is not configured"}
NOT_AVAILABLE = {"detail": "Platega recurrent payments are not available"}


@pytest.mark.platega_env(PLATEGA_SECRET="")
async def test_every_operation_is_503_while_platega_is_not_configured(make_user, subscribe, cabinet):
    user = await make_user()
    await subscribe(user["id"])
    async with cabinet(user["id"]) as http:
        answers = [
            await http.get(BASE),
            await http.post(f"{BASE}/enable"),
            await http.post(f"{BASE}/purchase?tariff_id=1"),
            await http.post(f"{BASE}/cancel"),
        ]
    assert [(r.status_code, r.json()) for r in answers] == [(503, NOT_CONFIGURED)] * 4


async def test_the_state_of_a_subscription(client, make_user, subscribe, cabinet):
    user = await make_user()
    subscription_id = await subscribe(user["id"])
    async with cabinet(user["id"]) as http:
        state = await http.get(BASE)
        by_id = await http.get(f"{BASE}?subscription_id={subscription_id}")
    assert state.status_code == 200
    assert state.json() == {
        "provider": "platega",
        "subscription_id": subscription_id,
        "available": False,
        "enabled": False,
        "status": None,
        "autopay_enabled": False,
        "message": "Platega recurrent payments are not available",
    }
    assert by_id.json() == state.json()


async def test_enable_and_purchase_are_refused_and_change_nothing(client, db, make_user, subscribe, cabinet):
    user = await make_user()
    subscription_id = await subscribe(user["id"])
    async with db.session() as session:
        await session.exec(
            update(Subscription).where(col(Subscription.id) == subscription_id).values(autopay_enabled=True)
        )
        await session.commit()
    async with cabinet(user["id"]) as http:
        enabled = await http.post(f"{BASE}/enable")
        purchased = await http.post(f"{BASE}/purchase?tariff_id=7")
        missing_tariff = await http.post(f"{BASE}/purchase")
        state = (await http.get(BASE)).json()
    assert [(r.status_code, r.json()) for r in (enabled, purchased)] == [(503, NOT_AVAILABLE)] * 2
    assert missing_tariff.status_code == 422
    assert (state["enabled"], state["available"], state["autopay_enabled"]) == (False, False, True)
    record = (await client.get(f"/subscriptions/{subscription_id}")).json()
    assert record["autopay_enabled"] is True  # the refusal left the balance autopay on


async def test_cancel_finds_nothing_to_stop(make_user, subscribe, cabinet):
    user = await make_user()
    await subscribe(user["id"])
    async with cabinet(user["id"]) as http:
        cancelled = await http.post(f"{BASE}/cancel")
    assert (cancelled.status_code, cancelled.json()) == (
        200, {"success": True, "cancelled": False, "message": "No active auto-renewal for this subscription"}
    )  # fmt: skip


async def test_only_the_users_own_subscription(make_user, subscribe, cabinet):
    user, other = await make_user(), await make_user()
    theirs = await subscribe(other["id"])
    async with cabinet(user["id"]) as http:
        without = [await http.get(BASE), await http.post(f"{BASE}/enable"), await http.post(f"{BASE}/cancel")]
        not_mine = [
            await http.get(f"{BASE}?subscription_id={theirs}"),
            await http.post(f"{BASE}/enable?subscription_id={theirs}"),
            await http.post(f"{BASE}/cancel?subscription_id={theirs}"),
        ]
        beyond = await http.get(f"{BASE}?subscription_id={2**40}")
    assert [(r.status_code, r.json()) for r in without] == [(404, {"detail": "No subscription found"})] * 3
    assert [(r.status_code, r.json()) for r in not_mine] == [(404, {"detail": "Subscription not found"})] * 3
    assert beyond.status_code == 422


async def test_multi_tariff_mode_resolves_the_active_one(make_user, subscribe, cabinet, change_settings):
    change_settings(SubscriptionSettings, MULTI_TARIFF_ENABLED=True)
    user = await make_user()
    subscription_id = await subscribe(user["id"])
    async with cabinet(user["id"]) as http:
        state = (await http.get(BASE)).json()
    assert state["subscription_id"] == subscription_id


async def test_the_cabinet_needs_an_access_token(anon_client, client):
    for path in (BASE, f"{BASE}/enable", f"{BASE}/cancel"):
        method = anon_client.get if path == BASE else anon_client.post
        assert (await method(path)).status_code == 401

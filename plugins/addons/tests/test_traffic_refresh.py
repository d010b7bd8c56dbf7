"""refresh-traffic: the panel's figures, stored; asked again within the minute, the same
answer from the cache, else 429 with Retry-After."""

from __future__ import annotations

import pytest
from subsvc_subscriptions.models import Subscription

REFRESH = "/cabinet/subscription/refresh-traffic"
GIB = 1024**3


async def test_the_panels_figures_are_stored_and_kept_for_the_minute(cabinet, subscriber, fake_panel, rows):
    me = await subscriber(traffic_limit_gb=10)
    me.account["lifetimeUsedTrafficBytes"] = 7 * GIB
    async with cabinet(me.user.id) as http:
        fresh = await http.post(REFRESH)
        assert fresh.status_code == 200
        assert fresh.json() == {
            "success": True,
            "cached": False,
            "rate_limited": False,
            "retry_after_seconds": None,
            "source": "panel",
            "traffic_used_bytes": 3 * GIB,
            "traffic_used_gb": 3.0,
            "traffic_limit_bytes": 0,
            "traffic_limit_gb": 10,
            "traffic_used_percent": 30.0,
            "is_unlimited": False,
            "lifetime_used_bytes": 7 * GIB,
            "lifetime_used_gb": 7.0,
        }
        (row,) = await rows(Subscription, id=me.subscription.id)
        assert row.traffic_used_gb == 3.0
        me.account["usedTrafficBytes"] = 5 * GIB
        again = await http.post(REFRESH)
        assert again.status_code == 200
        body = again.json()
        assert (body["cached"], body["rate_limited"], body["traffic_used_gb"]) == (True, True, 3.0)
        assert 0 < body["retry_after_seconds"] <= 60
    assert fake_panel.count("GET", f"/users/by-telegram-id/{me.user.messenger_id}") == 1


async def test_without_an_answer_the_stored_figures_then_429(cabinet, subscriber):
    me = await subscriber(account=False, traffic_used_gb=1.5, traffic_limit_gb=0)
    other = await subscriber(user=me.user, account=False)
    async with cabinet(me.user.id) as http:
        stored = await http.post(REFRESH, params={"subscription_id": me.subscription.id})
        body = stored.json()
        assert (
            body["source"],
            body["traffic_used_gb"],
            body["is_unlimited"],
            body["traffic_used_percent"],
        ) == (
            "database",
            1.5,
            True,
            0.0,
        )
        limited = await http.post(REFRESH, params={"subscription_id": me.subscription.id})
        assert limited.status_code == 429
        assert limited.json()["detail"].startswith("Rate limited. Try again in ")
        assert 0 < int(limited.headers["Retry-After"]) <= 60
        # the limit is per subscription
        assert (
            await http.post(REFRESH, params={"subscription_id": other.subscription.id})
        ).status_code == 200


@pytest.mark.addons_env(RATE_LIMITS="refresh_traffic=2/minute")
async def test_the_limit_is_a_setting(cabinet, subscriber, fake_panel):
    me = await subscriber()
    async with cabinet(me.user.id) as http:
        assert [(await http.post(REFRESH)).json()["cached"] for _ in range(3)] == [False, False, True]


async def test_no_subscription_is_404(cabinet, make_user):
    async with cabinet((await make_user()).id) as http:
        missing = await http.post(REFRESH)
    assert (missing.status_code, missing.json()) == (404, {"detail": "No active subscription"})

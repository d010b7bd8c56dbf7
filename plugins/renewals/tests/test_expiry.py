"""The expiry job over a controllable clock: due subscriptions are marked expired once, each
with a ``subscription.expired`` event, whatever the runs."""

from __future__ import annotations

from datetime import timedelta

from subsvc_renewals.api import expire_due

from subsvc.db import utcnow


async def test_due_subscriptions_expire_once(app, cabinet, subscriber, outbox):
    ended = await subscriber(days=-1)
    ending = await subscriber(days=2)
    trial = await subscriber(days=-3, is_trial=True, status="trial")
    assert await expire_due(app) == 2
    assert await expire_due(app) == 0  # run again: nothing left
    expired = [payload for kind, payload in await outbox() if kind == "subscription.expired"]
    assert sorted(p["subscription_id"] for p in expired) == sorted(
        [ended.subscription.id, trial.subscription.id]
    )
    async with cabinet(ended.user.id) as http:
        assert (await http.get("/cabinet/subscription")).json()["subscription"]["status"] == "expired"
    # three days on, the second one has ended too
    assert await expire_due(app, now=utcnow() + timedelta(days=3)) == 1
    async with cabinet(ending.user.id) as http:
        assert (await http.get("/cabinet/subscription")).json()["subscription"]["status"] == "expired"

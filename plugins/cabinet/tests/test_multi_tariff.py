"""Release 4.1.0's "Cabinet Multi-Tariff": one subscription by id, the removal of one that has
ended (the panel told through the queue's event), and the current subscription in multi-tariff
mode (`GET /cabinet/subscription/info`)."""

from __future__ import annotations

from datetime import timedelta

from subsvc_subscriptions.api import SubscriptionSettings
from subsvc_subscriptions.models import Subscription

from subsvc.db import utcnow

from .test_subscription import FIELDS, add_row, set_row, subscribe

NOT_FOUND = {"detail": "Subscription not found"}


async def test_one_subscription_by_id_only_the_users_own(client, db, make_user, cabinet):
    user, other = await make_user(), await make_user()
    mine = await subscribe(client, user["id"], device_limit=2)
    await set_row(db, mine, subscription_crypto_link="crypto://link", subscription_url="https://sub/x")
    theirs = await subscribe(client, other["id"])
    async with cabinet(user["id"]) as http:
        found = await http.get(f"/cabinet/subscriptions/{mine}")
        missing = [await http.get(f"/cabinet/subscriptions/{i}") for i in (theirs, 999_999)]
        beyond = await http.get(f"/cabinet/subscriptions/{2**40}")
    assert found.status_code == 200
    item = found.json()
    assert set(item) == FIELDS | {"subscription_crypto_link"}
    assert (item["id"], item["status"], item["device_limit"], item["is_daily"]) == (mine, "active", 2, False)
    assert (item["subscription_crypto_link"], item["subscription_url"]) == ("crypto://link", "https://sub/x")
    assert [(r.status_code, r.json()) for r in missing] == [(404, NOT_FOUND)] * 2
    assert beyond.status_code == 422


async def test_a_daily_subscription_reads_as_daily(client, db, make_user, cabinet):
    user = await make_user()
    daily = await subscribe(client, user["id"])
    await set_row(db, daily, last_daily_charge_at=utcnow(), is_daily_paused=True)
    async with cabinet(user["id"]) as http:
        item = (await http.get(f"/cabinet/subscriptions/{daily}")).json()
    assert (item["is_daily"], item["is_daily_paused"]) == (True, True)


async def test_delete_removes_an_ended_subscription_and_tells_the_panel(
    client, db, rows, outbox, make_user, cabinet
):
    user = await make_user()
    current = await subscribe(client, user["id"])
    now = utcnow()
    expired = await add_row(db, user["id"], status="active", end_date=now - timedelta(days=1))
    disabled = await add_row(db, user["id"], status="disabled")
    async with cabinet(user["id"]) as http:
        gone = await http.delete(f"/cabinet/subscriptions/{expired}")
        also = await http.delete(f"/cabinet/subscriptions/{disabled}")
        again = await http.delete(f"/cabinet/subscriptions/{expired}")
        listed = (await http.get("/cabinet/subscriptions")).json()
    assert (gone.status_code, gone.json()) == (
        200, {"success": True, "message": "Subscription deleted", "subscription_id": expired}
    )  # fmt: skip
    assert also.status_code == 200
    assert (again.status_code, again.json()) == (404, NOT_FOUND)
    assert [item["id"] for item in listed["subscriptions"]] == [current]
    assert {row.id for row in await rows(Subscription)} == {current}
    # the expired one is disabled in the panel through the queue (the disabled one was already)
    disabled_events = [
        payload["subscription_id"]
        for kind, payload in await outbox()
        if kind == "subscription.changed" and payload["change"] == "disabled"
    ]
    assert disabled_events == [expired]


async def test_delete_refuses_a_live_one_and_anothers(client, db, rows, make_user, cabinet):
    user, other = await make_user(), await make_user()
    active = await subscribe(client, user["id"])
    trial_user = await make_user()
    trial = await subscribe(client, trial_user["id"], is_trial=True)
    limited = await add_row(db, user["id"], status="limited")
    theirs = await add_row(db, other["id"], status="expired")
    refused = {"detail": "Active subscriptions cannot be deleted"}
    async with cabinet(user["id"]) as http:
        answers = [await http.delete(f"/cabinet/subscriptions/{i}") for i in (active, limited)]
        not_mine = await http.delete(f"/cabinet/subscriptions/{theirs}")
    async with cabinet(trial_user["id"]) as http:
        trial_answer = await http.delete(f"/cabinet/subscriptions/{trial}")
    assert [(r.status_code, r.json()) for r in [*answers, trial_answer]] == [(400, refused)] * 3
    assert (not_mine.status_code, not_mine.json()) == (404, NOT_FOUND)
    assert len(await rows(Subscription)) == 4


async def test_multi_tariff_mode_shows_the_active_one_with_most_time_left(
    client, db, make_user, cabinet, change_settings
):
    change_settings(SubscriptionSettings, MULTI_TARIFF_ENABLED=True)
    user = await make_user()
    now = utcnow()
    longest = await add_row(db, user["id"], tariff_id=1, end_date=now + timedelta(days=40))
    await add_row(db, user["id"], tariff_id=2, end_date=now + timedelta(days=5))
    daily = await add_row(db, user["id"], tariff_id=3, end_date=now + timedelta(days=90))
    await set_row(db, daily, last_daily_charge_at=now)
    await add_row(db, user["id"], tariff_id=4, status="expired", end_date=now + timedelta(days=99))
    async with cabinet(user["id"]) as http:
        info = (await http.get("/cabinet/subscription/info")).json()
        listed = (await http.get("/cabinet/subscriptions")).json()
    assert (info["has_subscription"], info["subscription"]["id"]) == (True, longest)
    assert (listed["multi_tariff_enabled"], listed["total"]) == (True, 4)

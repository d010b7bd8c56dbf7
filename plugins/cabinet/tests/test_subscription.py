"""`GET /cabinet/subscription` and `GET /cabinet/subscriptions` (4.1.0's shape): the reference's fields,
computed from subscriptions made through the Web API (and rows put in a given state)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col
from subsvc_cabinet.settings import CabinetSettings
from subsvc_promo_groups import models as _promo_groups  # noqa: F401 - users refer to promo_groups: keep the metadata whole
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.service import new_short_id

from subsvc.db import utcnow

FIELDS = {
    "id", "status", "is_trial", "start_date", "end_date", "days_left", "hours_left", "minutes_left",
    "time_left_display", "traffic_limit_gb", "traffic_used_gb", "traffic_used_percent", "device_limit",
    "connected_squads", "servers", "autopay_enabled", "autopay_days_before", "subscription_url",
    "hide_subscription_link", "is_active", "is_expired", "is_limited", "traffic_purchases", "is_daily",
    "is_daily_paused", "daily_price_kopeks", "next_daily_charge_at", "tariff_id", "tariff_name",
    "traffic_reset_mode",
}  # fmt: skip


async def subscribe(client, user_id: int, **body) -> int:
    body.setdefault("period_days", 30)
    response = await client.post(f"/users/{user_id}/subscription", json=body)
    assert response.status_code == 201, response.text
    return int(response.json()["subscription"]["id"])


async def set_row(db, subscription_id: int, **values) -> None:
    async with db.session() as session:
        await session.exec(
            update(Subscription).where(col(Subscription.id) == subscription_id).values(**values)
        )
        await session.commit()


async def add_row(db, user_id: int, **values) -> int:
    now = utcnow()
    values = {"start_date": now - timedelta(days=1), "end_date": now + timedelta(days=10), **values}
    row = Subscription(user_id=user_id, short_id=new_short_id(), **values)
    async with db.session() as session:
        session.add(row)
        await session.commit()
        assert row.id is not None
        return row.id


async def test_without_a_subscription_the_answer_is_200_with_null(make_user, cabinet):
    user = await make_user()
    async with cabinet(user["id"]) as http:
        response = await http.get("/cabinet/subscription")
        listed = await http.get("/cabinet/subscriptions")
    assert response.status_code == 200
    assert response.json() == {"has_subscription": False, "subscription": None}
    assert listed.json() == {
        "subscriptions": [], "multi_tariff_enabled": False, "total": 0, "limit": 50, "offset": 0
    }  # fmt: skip


async def test_a_paid_subscription_with_every_field(client, make_user, cabinet):
    user = await make_user()
    subscription_id = await subscribe(
        client, user["id"], traffic_limit_gb=100, device_limit=3, connected_squads=["sq-1", "sq-2"]
    )
    async with cabinet(user["id"]) as http:
        body = (await http.get("/cabinet/subscription")).json()
    assert body["has_subscription"] is True
    data = body["subscription"]
    assert set(data) == FIELDS
    end = datetime.fromisoformat(data["end_date"])
    assert (
        timedelta(days=29, hours=23) < end - datetime.fromisoformat(data["start_date"]) <= timedelta(days=30)
    )
    assert (data["days_left"], data["hours_left"], data["minutes_left"]) == (29, 23, 59)
    assert data["time_left_display"] == "29d 23h"
    assert {key: data[key] for key in FIELDS - {"start_date", "end_date", "days_left", "hours_left",
                                                 "minutes_left", "time_left_display"}} == {
        "id": subscription_id,
        "status": "active",
        "is_trial": False,
        "traffic_limit_gb": 100,
        "traffic_used_gb": 0.0,
        "traffic_used_percent": 0.0,
        "device_limit": 3,
        "connected_squads": ["sq-1", "sq-2"],
        "servers": [],
        "autopay_enabled": False,
        "autopay_days_before": 3,
        "subscription_url": None,
        "hide_subscription_link": False,
        "is_active": True,
        "is_expired": False,
        "is_limited": False,
        "traffic_purchases": [],
        "is_daily": False,
        "is_daily_paused": False,
        "daily_price_kopeks": None,
        "next_daily_charge_at": None,
        "tariff_id": None,
        "tariff_name": None,
        "traffic_reset_mode": "MONTH",
    }  # fmt: skip


async def test_traffic_use_and_purchases(client, db, make_user, cabinet):
    user = await make_user()
    subscription_id = await subscribe(client, user["id"], traffic_limit_gb=100)
    assert (
        await client.post(f"/subscriptions/{subscription_id}/traffic", json={"gb": 20})
    ).status_code == 200
    await set_row(db, subscription_id, traffic_used_gb=40.004)
    async with cabinet(user["id"]) as http:
        data = (await http.get("/cabinet/subscription")).json()["subscription"]
    assert (data["traffic_limit_gb"], data["traffic_used_gb"], data["traffic_used_percent"]) == (
        120,
        40.0,
        33.3,
    )
    (purchase,) = data["traffic_purchases"]
    assert (purchase["traffic_gb"], purchase["days_remaining"], purchase["progress_percent"]) == (20, 29, 0.0)
    expires = datetime.fromisoformat(purchase["expires_at"]) - datetime.fromisoformat(purchase["created_at"])
    assert expires == timedelta(days=30)

    await set_row(db, subscription_id, traffic_used_gb=500.0)
    async with cabinet(user["id"]) as http:
        data = (await http.get("/cabinet/subscription")).json()["subscription"]
    assert data["traffic_used_percent"] == 100.0


async def test_an_expired_subscription_has_no_time_left(client, db, make_user, cabinet):
    user = await make_user()
    subscription_id = await subscribe(client, user["id"], traffic_limit_gb=0)
    await set_row(db, subscription_id, end_date=utcnow() - timedelta(minutes=1), traffic_used_gb=7.5)
    async with cabinet(user["id"]) as http:
        data = (await http.get("/cabinet/subscription")).json()["subscription"]
    assert (data["status"], data["is_active"], data["is_expired"]) == ("expired", False, True)
    assert (data["days_left"], data["hours_left"], data["minutes_left"], data["time_left_display"]) == (
        0,
        0,
        0,
        "0m",
    )
    assert (data["traffic_used_gb"], data["traffic_used_percent"]) == (7.5, 0.0)  # unlimited


@pytest.mark.parametrize(
    ("left", "display"),
    [(timedelta(hours=5, minutes=30, seconds=30), "5h 30m"), (timedelta(minutes=42, seconds=30), "42m")],
)
async def test_time_left_display_below_a_day(client, db, make_user, cabinet, left, display):
    user = await make_user()
    subscription_id = await subscribe(client, user["id"])
    await set_row(db, subscription_id, end_date=utcnow() + left)
    async with cabinet(user["id"]) as http:
        data = (await http.get("/cabinet/subscription")).json()["subscription"]
    assert (data["days_left"], data["time_left_display"]) == (0, display)


async def test_a_trial_and_a_limited_subscription(client, db, make_user, cabinet):
    user = await make_user()
    subscription_id = await subscribe(client, user["id"], is_trial=True)
    async with cabinet(user["id"]) as http:
        data = (await http.get("/cabinet/subscription")).json()["subscription"]
        assert (data["is_trial"], data["status"], data["is_active"]) == (True, "active", True)
        await set_row(db, subscription_id, status="limited")
        data = (await http.get("/cabinet/subscription")).json()["subscription"]
    assert (data["status"], data["is_limited"], data["is_active"], data["is_expired"]) == (
        "limited", True, False, False,
    )  # fmt: skip


async def test_hide_link_and_reset_mode_come_from_settings(app, client, make_user, cabinet, change_settings):
    change_settings(CabinetSettings, HIDE_SUBSCRIPTION_LINK=True, DEFAULT_TRAFFIC_RESET_STRATEGY="WEEK")
    user = await make_user()
    await subscribe(client, user["id"])
    async with cabinet(user["id"]) as http:
        data = (await http.get("/cabinet/subscription")).json()["subscription"]
    assert (data["hide_subscription_link"], data["traffic_reset_mode"]) == (True, "WEEK")


async def test_subscription_id_chooses_one_of_the_users_own(client, db, make_user, cabinet):
    user, other = await make_user(), await make_user()
    current = await subscribe(client, user["id"])
    older = await add_row(db, user["id"], status="disabled", created_at=utcnow() - timedelta(days=90))
    theirs = await subscribe(client, other["id"])
    async with cabinet(user["id"]) as http:
        assert (await http.get("/cabinet/subscription")).json()["subscription"]["id"] == current
        chosen = await http.get(f"/cabinet/subscription?subscription_id={older}")
        assert chosen.status_code == 200
        assert (chosen.json()["subscription"]["id"], chosen.json()["subscription"]["status"]) == (
            older,
            "disabled",
        )
        info = await http.get(f"/cabinet/subscription/info?subscription_id={older}")
        assert info.json() == chosen.json()
        for missing in (theirs, 999_999, -1):
            response = await http.get(f"/cabinet/subscription?subscription_id={missing}")
            assert (response.status_code, response.json()) == (404, {"detail": "Subscription not found"})
        beyond = await http.get(f"/cabinet/subscription?subscription_id={2**40}")
        bad = await http.get("/cabinet/subscription?subscription_id=abc")
    assert beyond.status_code == 422  # no subscription id is beyond the INTEGER column
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["query", "subscription_id"], "less_than_equal")
    ]
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["query", "subscription_id"]


async def test_list_every_subscription_newest_first_in_pages(client, db, make_user, cabinet):
    user, other = await make_user(), await make_user()
    current = await subscribe(client, user["id"])
    now = utcnow()
    old = await add_row(db, user["id"], status="expired", created_at=now - timedelta(days=60))
    older = await add_row(db, user["id"], status="disabled", created_at=now - timedelta(days=90))
    await subscribe(client, other["id"])
    async with cabinet(user["id"]) as http:
        page = (await http.get("/cabinet/subscriptions")).json()
        second = (await http.get("/cabinet/subscriptions?limit=2&offset=2")).json()
        bad = await http.get("/cabinet/subscriptions?limit=0")
    assert [item["id"] for item in page["subscriptions"]] == [current, old, older]
    assert [item["status"] for item in page["subscriptions"]] == ["active", "expired", "disabled"]
    assert all(set(item) == FIELDS | {"subscription_crypto_link"} for item in page["subscriptions"])
    assert (page["total"], page["limit"], page["offset"], page["multi_tariff_enabled"]) == (3, 50, 0, False)
    assert ([item["id"] for item in second["subscriptions"]], second["total"]) == ([older], 3)
    assert bad.status_code == 422


async def test_the_cabinet_needs_an_access_token(anon_client, client, app):
    for path in ("/cabinet/subscription", "/cabinet/subscriptions", "/cabinet/balance"):
        assert (await anon_client.get(path)).status_code == 401
        assert (await client.get(path)).status_code == 401  # an API key is not a cabinet credential
        refresh = app.state.jwt.refresh_token(1)
        response = await anon_client.get(path, headers={"Authorization": f"Bearer {refresh}"})
        assert response.status_code == 401

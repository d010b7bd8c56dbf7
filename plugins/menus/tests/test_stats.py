"""`/menu-layout/stats`: clicks logged, then counted per button, day, hour, weekday, type and
user, and compared between periods (times in UTC)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from subsvc_menus.models import ButtonClick

from subsvc.db import utcnow
from subsvc.testing import parse_utc as utc

STATS = "/menu-layout/stats"


async def test_log_click_records_a_row(client, rows):
    params = {
        "button_id": "balance",
        "user_id": 7,
        "callback_data": "menu_balance",
        "button_type": "builtin",
        "button_text": "Balance",
    }
    response = await client.post(f"{STATS}/log-click", params=params)
    assert response.status_code == 200
    (click,) = await rows(ButtonClick)
    assert response.json() == {"success": True, "id": click.id}
    assert (click.button_id, click.user_id, click.button_type, click.button_text) == (
        "balance",
        7,
        "builtin",
        "Balance",
    )
    assert abs((utcnow() - click.clicked_at).total_seconds()) < 60
    missing = await client.post(f"{STATS}/log-click")
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["query", "button_id"]
    assert (await client.post(f"{STATS}/log-click", params={"button_id": "x" * 101})).status_code == 422


async def test_per_button_figures(client, add_clicks):
    now = utcnow()
    today = now.replace(hour=0, minute=0, second=0, microsecond=1)
    await add_clicks(
        [
            {"button_id": "balance", "user_id": 1, "clicked_at": today},
            {"button_id": "balance", "user_id": 2, "clicked_at": now - timedelta(days=3)},
            {"button_id": "balance", "user_id": 1, "clicked_at": now - timedelta(days=10)},
            {"button_id": "balance", "user_id": None, "clicked_at": now - timedelta(days=100)},
            {"button_id": "info", "user_id": 3, "clicked_at": now - timedelta(days=40)},
        ]
    )
    body = (await client.get(STATS, params={"days": 30})).json()
    assert body["total_clicks"] == 3
    assert utc(body["period_end"]) - utc(body["period_start"]) == timedelta(days=30)
    balance, info = body["items"]
    assert {
        k: balance[k]
        for k in ("button_id", "clicks_total", "clicks_today", "clicks_week", "clicks_month", "unique_users")
    } == {
        "button_id": "balance",
        "clicks_total": 4,
        "clicks_today": 1,
        "clicks_week": 2,
        "clicks_month": 3,
        "unique_users": 2,
    }
    assert utc(balance["last_click_at"]) == today
    assert info["clicks_total"] == 1 and info["clicks_month"] == 0
    assert (await client.get(STATS, params={"days": 0})).status_code == 422


async def test_one_button_with_clicks_per_day(client, add_clicks):
    now = utcnow()
    days = [now - timedelta(days=d) for d in (0, 0, 2, 45)]
    await add_clicks([{"button_id": "info", "user_id": n, "clicked_at": at} for n, at in enumerate(days)])
    body = (await client.get(f"{STATS}/buttons/info", params={"days": 7})).json()
    assert (
        body["button_id"] == "info"
        and body["stats"]["clicks_total"] == 4
        and body["stats"]["clicks_month"] == 3
    )
    assert body["clicks_by_day"] == [
        {"date": days[2].date().isoformat(), "count": 1},
        {"date": now.date().isoformat(), "count": 2},
    ]
    never = (await client.get(f"{STATS}/buttons/ghost")).json()
    assert (
        never["stats"]["clicks_total"] == 0
        and never["stats"]["last_click_at"] is None
        and never["clicks_by_day"] == []
    )


async def test_clicks_by_hour_weekday_and_type(client, add_clicks):
    monday = datetime(2026, 11, 16, 9, 30, tzinfo=UTC)  # a Monday
    base = utcnow() - timedelta(days=1)
    shift = timedelta(days=(base.date() - monday.date()).days // 7 * 7)  # the latest Monday before
    at = [monday + shift, monday + shift + timedelta(days=6, hours=14)]  # Monday 09:30, Sunday 23:30
    await add_clicks(
        [
            {"button_id": "info", "button_type": "builtin", "user_id": 1, "clicked_at": at[0]},
            {"button_id": "site", "button_type": "url", "user_id": 1, "clicked_at": at[0]},
            {"button_id": "site", "button_type": "url", "user_id": 2, "clicked_at": at[1]},
            {"button_id": "site", "button_type": None, "user_id": 2, "clicked_at": at[1]},
        ]
    )
    hours = (await client.get(f"{STATS}/by-hour", params={"days": 30})).json()
    assert len(hours["items"]) == 24 and hours["button_id"] is None
    assert {h["hour"]: h["count"] for h in hours["items"] if h["count"]} == {9: 2, 23: 2}
    site_hours = (await client.get(f"{STATS}/by-hour", params={"button_id": "info"})).json()
    assert {h["hour"]: h["count"] for h in site_hours["items"] if h["count"]} == {9: 1}
    weekdays = (await client.get(f"{STATS}/by-weekday")).json()["items"]
    assert [d["weekday"] for d in weekdays] == list(range(7))
    assert weekdays[0] == {"weekday": 0, "weekday_name": "Понедельник", "count": 2}
    assert weekdays[6]["count"] == 2 and weekdays[6]["weekday_name"] == "Воскресенье"
    types = (await client.get(f"{STATS}/by-type")).json()
    assert types == {
        "items": [
            {"button_type": "url", "clicks_total": 2, "unique_users": 2},
            {"button_type": "builtin", "clicks_total": 1, "unique_users": 1},
        ],
        "total_clicks": 3,
    }


async def test_top_users_and_their_sequences(client, add_clicks):
    now = utcnow()
    await add_clicks(
        [
            {"button_id": "a", "user_id": 1, "button_text": "A", "clicked_at": now - timedelta(minutes=m)}
            for m in range(3)
        ]
        + [
            {"button_id": "b", "user_id": 2, "clicked_at": now - timedelta(minutes=1)},
            {"button_id": "a", "user_id": 2, "clicked_at": now - timedelta(days=90)},
            {"button_id": "a", "user_id": None, "clicked_at": now},
        ]
    )
    top = (await client.get(f"{STATS}/top-users", params={"limit": 5})).json()
    assert top["limit"] == 5 and [(u["user_id"], u["clicks_count"]) for u in top["items"]] == [(1, 3), (2, 1)]
    only_b = (await client.get(f"{STATS}/top-users", params={"button_id": "b"})).json()
    assert [u["user_id"] for u in only_b["items"]] == [2] and only_b["button_id"] == "b"
    assert (await client.get(f"{STATS}/top-users", params={"limit": 0})).status_code == 422
    sequence = (await client.get(f"{STATS}/users/1/sequences", params={"limit": 2})).json()
    assert sequence["user_id"] == 1 and sequence["total"] == 3
    assert [s["button_text"] for s in sequence["items"]] == ["A", "A"]
    assert utc(sequence["items"][0]["clicked_at"]) > utc(sequence["items"][1]["clicked_at"])
    assert (await client.get(f"{STATS}/users/x/sequences")).status_code == 422


async def test_period_comparison(client, add_clicks):
    now = utcnow()
    await add_clicks(
        [{"button_id": "a", "clicked_at": now - timedelta(days=1)} for _ in range(3)]
        + [{"button_id": "a", "clicked_at": now - timedelta(days=8)} for _ in range(2)]
        + [{"button_id": "b", "clicked_at": now - timedelta(days=8)}]
    )
    body = (await client.get(f"{STATS}/compare")).json()
    assert body["current_period"]["clicks"] == 3 and body["previous_period"]["clicks"] == 3
    assert body["change"] == {"absolute": 0, "percent": 0.0, "trend": "stable"}
    only_a = (await client.get(f"{STATS}/compare", params={"button_id": "a"})).json()
    assert only_a["change"] == {"absolute": 1, "percent": 50.0, "trend": "up"} and only_a["button_id"] == "a"
    assert utc(only_a["previous_period"]["end"]) == utc(only_a["current_period"]["start"])
    none_before = (
        await client.get(f"{STATS}/compare", params={"current_days": 30, "previous_days": 1})
    ).json()
    assert none_before["change"] == {"absolute": 6, "percent": 0.0, "trend": "stable"}


async def test_old_clicks_are_pruned(app, add_clicks, rows):
    from subsvc_menus.jobs import prune_clicks

    now = utcnow()
    await add_clicks(
        [
            {"button_id": "old", "clicked_at": now - timedelta(days=401)},
            {"button_id": "kept", "clicked_at": now - timedelta(days=399)},
        ]
    )
    await prune_clicks(app)
    assert [c.button_id for c in await rows(ButtonClick)] == ["kept"]

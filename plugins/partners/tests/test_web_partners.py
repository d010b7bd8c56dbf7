"""Web API "partners" over HTTP: referrers with their referees, earnings and statistics by
aggregate queries, and the individual commission percent (0..100 or null)."""

from __future__ import annotations

REFERRERS = "/partners/referrers"


async def test_referrers_and_their_referees(client, member_user, earn, make_user):
    await earn(2, 3000)
    await earn(2, 2000)
    await make_user(referred_by_id=2, has_made_first_topup=True)
    listed = (await client.get(REFERRERS, params={"search": "member"})).json()
    assert listed["total"] == 1
    item = listed["items"][0]
    assert (item["id"], item["invited_count"], item["total_earned_kopeks"]) == (2, 3, 5000)
    assert item["total_earned_rubles"] == 50.0 and item["month_earned_kopeks"] == 5000
    assert item["referral_commission_percent"] is None and item["effective_referral_commission_percent"] == 25

    by_messenger_id = (
        await client.get(f"{REFERRERS}/{member_user.messenger_id}", params={"limit": 2})
    ).json()
    referrals = by_messenger_id["referrals"]
    assert by_messenger_id["referrer"]["id"] == 2
    assert (referrals["total"], len(referrals["items"]), referrals["has_next"], referrals["total_pages"]) == (
        3,
        2,
        True,
        2,
    )
    assert sorted(r["total_earned_kopeks"] for r in referrals["items"]) in (
        [0, 2000],
        [2000, 3000],
        [0, 3000],
    )
    missing = await client.get(f"{REFERRERS}/987654")
    assert missing.status_code == 404 and missing.json()["detail"] == "User not found"


async def test_commission_percent_any_user(client, app, db, member_user):
    set_zero = await client.patch(f"{REFERRERS}/2/commission", json={"referral_commission_percent": 0})
    assert set_zero.status_code == 200, set_zero.text
    assert (
        set_zero.json()["referral_commission_percent"],
        set_zero.json()["effective_referral_commission_percent"],
    ) == (0, 0)
    cleared = await client.patch(f"{REFERRERS}/2/commission", json={"referral_commission_percent": None})
    assert cleared.json()["effective_referral_commission_percent"] == 25
    assert (
        await client.patch(f"{REFERRERS}/2/commission", json={"referral_commission_percent": 101})
    ).status_code == 422


async def test_statistics(client, member_user, earn, make_user):
    await earn(2, 3000)
    await make_user(referred_by_id=2, has_made_first_topup=True)
    stats = (await client.get("/partners/stats")).json()
    assert stats["summary"] == {
        "total_referrers": 1,
        "total_referrals": 2,
        "paid_referrals": 1,
        "conversion_rate_percent": 50.0,
        "avg_earnings_per_referral_kopeks": 3000.0,
    }
    assert stats["payouts"]["all_time_kopeks"] == 3000 and stats["payouts"]["today_kopeks"] == 3000
    assert stats["new_referrals"] == {"today": 2, "week": 2, "month": 2}
    daily = (await client.get("/partners/stats/daily", params={"days": 3})).json()
    assert len(daily["items"]) == 3 and daily["days"] == 3
    assert sum(d["earnings_kopeks"] for d in daily["items"]) == 3000
    assert sum(d["referrals_count"] for d in daily["items"]) == 2
    top = (await client.get("/partners/stats/top-referrers", params={"days": 7})).json()
    assert [(t["id"], t["total_earnings_kopeks"], t["referrals_count"]) for t in top["items"]] == [
        (2, 3000, 2)
    ]

    detailed = (await client.get(f"{REFERRERS}/2/stats")).json()
    assert (
        detailed["summary"]["total_referrals"] == 2
        and detailed["summary"]["conversion_to_paid_percent"] == 50.0
    )
    assert detailed["earnings"]["all_time_kopeks"] == 3000 and detailed["referrals_count"]["week"] == 2
    own_daily = (await client.get(f"{REFERRERS}/2/stats/daily", params={"days": 1})).json()
    assert own_daily["user_id"] == 2 and own_daily["items"][0]["earnings_kopeks"] == 3000
    referrals = (await client.get(f"{REFERRERS}/2/stats/top-referrals")).json()["items"]
    assert [r["total_earnings_kopeks"] for r in referrals] == [3000, 0]
    compare = (await client.get(f"{REFERRERS}/2/stats/compare")).json()
    assert (
        compare["current_period"]["earnings_kopeks"] == 3000
        and compare["previous_period"]["earnings_kopeks"] == 0
    )
    assert compare["change"]["earnings"] == {"absolute": 3000, "percent": 100.0, "trend": "up"}
    assert (await client.get(f"{REFERRERS}/2/stats/compare", params={"current_days": 0})).status_code == 422

"""4.1.0 `GET /cabinet/admin/promo-offers/segments`: how many users each segment holds, the
same members a broadcast to it creates offers for."""

from __future__ import annotations

from datetime import timedelta

from subsvc.db import utcnow

ADMIN = "/cabinet/admin/promo-offers"
TERMS = {"notification_type": "winback", "valid_hours": 24, "discount_percent": 10}


async def test_counts_match_what_a_broadcast_reaches(admin, make_user, make_subscription, admin_user):
    paid, trial, lapsed = await make_user(), await make_user(), await make_user()
    await make_subscription(paid)
    await make_subscription(trial, is_trial=True)
    await make_subscription(lapsed, status="expired", end_date=utcnow() - timedelta(days=2))
    response = await admin.get(f"{ADMIN}/segments")
    assert response.status_code == 200
    counts = {item["key"]: item["count"] for item in response.json()["segments"]}
    assert list(counts)[:3] == ["all", "active", "trial"]
    assert len(counts) == 16
    assert (counts["active"], counts["trial"], counts["expired"]) == (1, 1, 1)
    for key in ("active", "trial", "expired", "all"):
        sent = await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": key})
        assert sent.json()["created_offers"] == counts[key], key


async def test_members_only_see_it_refused(member):
    assert (await member.get(f"{ADMIN}/segments")).status_code == 403

"""Campaign statistics, exact: registrations, bonuses issued, revenue (gateway deposits only:
neither the campaign's bonus nor an administrator's credit), conversion, the chart's series."""

from __future__ import annotations

from subsvc_billing.api import Transaction
from subsvc_campaigns.models import CampaignRegistration

from subsvc.db import utcnow
from subsvc.testing import ADMIN_MESSENGER_ID, stored

ADMIN = "/cabinet/admin/campaigns"


async def test_statistics_are_exact(admin, login, redeliver, db, rows, insert_user, pay):
    await insert_user(messenger_id=ADMIN_MESSENGER_ID)
    body = {
        "name": "Spring",
        "start_parameter": "spring",
        "bonus_type": "balance",
        "balance_bonus_kopeks": 1000,
    }
    campaign = (await admin.post(ADMIN, json=body)).json()
    other = (await admin.post(ADMIN, json={**body, "start_parameter": "other", "is_active": False})).json()
    users = [await login(9300 + i, "spring") for i in range(3)]
    for user_id in users:
        await redeliver(user_id)
    assert len(await rows(CampaignRegistration)) == 3
    now = utcnow()
    for user_id, kopeks, method in (
        (users[0], 30000, "yookassa"),
        (users[0], 20000, "cryptobot"),
        (users[1], 50000, "manual"),  # an administrator's credit: not revenue
    ):
        await pay(user_id, kopeks, method)
    await stored(
        db,
        Transaction(
            user_id=users[0],
            type="subscription_payment",
            amount_kopeks=15000,
            payment_method="balance",
            created_at=now,
        ),
    )

    stats = (await admin.get(f"{ADMIN}/{campaign['id']}/stats")).json()
    assert {k: stats[k] for k in stats if k not in ("last_registration", "deep_link", "web_link")} == {
        "id": campaign["id"],
        "name": "Spring",
        "start_parameter": "spring",
        "bonus_type": "balance",
        "is_active": True,
        "registrations": 3,
        "balance_issued_kopeks": 3000,
        "balance_issued_rubles": 30.0,
        "subscription_issued": 0,
        "total_revenue_kopeks": 50000,
        "total_revenue_rubles": 500.0,
        "avg_revenue_per_user_kopeks": 16666,
        "avg_revenue_per_user_rubles": 166.67,
        "avg_first_payment_kopeks": 30000,
        "avg_first_payment_rubles": 300.0,
        "trial_users_count": 0,
        "active_trials_count": 0,
        "conversion_count": 1,
        "paid_users_count": 1,
        "conversion_rate": 33.33,
        "trial_conversion_rate": 0.0,
    }
    assert stats["last_registration"] is not None

    overview = (await admin.get(f"{ADMIN}/overview")).json()
    assert overview == {
        "total": 2,
        "active": 1,
        "inactive": 1,
        "total_registrations": 3,
        "total_balance_issued_kopeks": 3000,
        "total_balance_issued_rubles": 30.0,
        "total_subscription_issued": 0,
        "total_tariff_issued": 0,
    }
    listed = (await admin.get(ADMIN)).json()
    assert listed["total"] == 2
    by_slug = {c["start_parameter"]: c for c in listed["campaigns"]}
    assert (by_slug["spring"]["registrations_count"], by_slug["spring"]["total_revenue_kopeks"]) == (3, 50000)
    assert by_slug["spring"]["conversion_rate"] == 33.33
    assert by_slug["other"]["registrations_count"] == 0

    chart = (await admin.get(f"{ADMIN}/{campaign['id']}/chart-data")).json()
    today = now.date().isoformat()
    assert chart["daily_stats"] == [{"date": today, "referrals_count": 3, "earnings_kopeks": 50000}]
    assert (chart["total_deposits_kopeks"], chart["total_spending_kopeks"]) == (50000, 15000)
    current = chart["period_comparison"]["current"]
    assert (current["referrals_count"], current["earnings_kopeks"]) == (3, 50000)
    assert chart["period_comparison"]["referrals_change"] == {"absolute": 3, "percent": 100.0, "trend": "up"}
    (top,) = chart["top_registrations"]
    assert (top["id"], top["total_earnings_kopeks"], top["has_paid"]) == (users[0], 50000, True)

    page = (await admin.get(f"{ADMIN}/{campaign['id']}/registrations", params={"per_page": 2})).json()
    assert (page["total"], page["page"], page["per_page"], len(page["registrations"])) == (3, 1, 2, 2)
    paid = {
        r["user_id"]: r["has_paid"]
        for r in (await admin.get(f"{ADMIN}/{campaign['id']}/registrations")).json()["registrations"]
    }
    assert paid == {users[0]: True, users[1]: False, users[2]: False}

    # one deletion rule for both APIs: a campaign with registrations is kept
    text = "Cannot delete campaign with 3 registrations. Deactivate it instead."
    for client_delete in (admin.delete(f"{ADMIN}/{campaign['id']}"),):
        refused = await client_delete
        assert (refused.status_code, refused.json()) == (400, {"detail": text})
    assert (await admin.delete(f"{ADMIN}/{other['id']}")).json() == {
        "message": "Campaign deleted successfully"
    }

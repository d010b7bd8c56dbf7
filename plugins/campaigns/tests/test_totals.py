"""The running totals equal the aggregates over the rows (the oracle): registrations made over
HTTP, gateway payments recorded through billing before and after the registration, a
redelivered payment counted once, the backfill of the migration, a registered user deleted."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import sqlalchemy as sa
from sqlalchemy.orm import Session
from subsvc_cabinet_auth.api import CabinetAuthSettings
from subsvc_campaigns import stats, totals
from subsvc_campaigns.models import (
    CampaignDay,
    CampaignPayer,
    CampaignPayment,
    CampaignRegistration,
    CampaignTotals,
)
from subsvc_users.api import User, delete_user

from subsvc.db import utcnow
from subsvc.testing import ADMIN_MESSENGER_ID

ADMIN = "/cabinet/admin/campaigns"


async def paid_totals(session, campaign_id):
    """Each registered user's kept paid total."""
    query = sa.select(CampaignPayer).where(CampaignPayer.campaign_id == campaign_id)
    return {p.user_id: p.paid_kopeks for p in (await session.exec(query)).scalars()}


async def oracle(db, campaign_id):
    """The aggregates' answer and the totals' answer, in one shape."""
    since = datetime.combine(utcnow().date() - timedelta(days=30), time(), tzinfo=utcnow().tzinfo)
    async with db.session() as session:
        registered = (await stats.registrations_by_campaign(session, [campaign_id]))[campaign_id]
        revenue = (await stats.revenue_by_campaign(session, [campaign_id])).get(campaign_id, stats.Revenue())
        aggregate = (
            registered.count,
            registered.balance_kopeks,
            registered.subscriptions,
            registered.tariffs,
            registered.last,
            revenue.kopeks,
            revenue.paid_users,
            await stats.first_payment_average(session, campaign_id),
            await stats.daily(session, campaign_id, since),
            await stats.top_payers_oracle(session, campaign_id),
        )
        kept = await totals.of(session, campaign_id)
        payers = kept.paid_users
        counted = (
            kept.registrations,
            kept.balance_kopeks,
            kept.subscriptions,
            kept.tariffs,
            kept.last_registration,
            kept.revenue_kopeks,
            payers,
            round(kept.first_payments_kopeks / payers) if payers else 0,
            await totals.daily(session, campaign_id, since),
            await paid_totals(session, campaign_id),
        )
    return aggregate, counted


async def test_the_totals_equal_the_aggregates(
    app, admin, client, anon_client, login, redeliver, insert_user, pay, db, wait_for, rows, change_settings
):
    change_settings(CabinetAuthSettings, BOT_USERNAME="subsvc_test_bot")
    await insert_user(messenger_id=ADMIN_MESSENGER_ID)
    body = {
        "name": "Autumn",
        "start_parameter": "autumn",
        "bonus_type": "balance",
        "balance_bonus_kopeks": 500,
    }
    campaign = (await admin.post(ADMIN, json=body)).json()
    users = [await login(9600 + i, "autumn") for i in range(3)]
    for user_id in users:
        await redeliver(user_id)  # a second delivery counts nothing
    await pay(users[0], 30000, "yookassa")
    await pay(users[0], 12000, "cryptobot")
    await pay(users[1], 7000, "stars")
    await pay(users[2], 50000, "manual")  # an administrator's credit: no revenue
    await pay(users[2], 7000, "stars")  # as much as users[1]: the later user lists first
    # the bot made this account and it paid before the cabinet's deep-link login attributed it
    token = (await anon_client.post("/cabinet/auth/deeplink/request")).json()["token"]
    bot_user = await insert_user(messenger_id=9700)
    await pay(bot_user.id, 25000, "yookassa")
    await pay(bot_user.id, 5000, "yookassa")
    confirmed = await client.post("/auth/deeplink/confirm", json={"token": token, "messenger_id": 9700})
    assert confirmed.status_code == 200, confirmed.text
    polled = await anon_client.post(
        "/cabinet/auth/deeplink/poll", json={"token": token, "campaign_slug": "autumn"}
    )
    assert polled.status_code == 200, polled.text
    await wait_for(lambda: rows(CampaignRegistration, user_id=bot_user.id))
    await pay(bot_user.id, 1000, "cryptobot")

    aggregate, counted = await oracle(db, campaign["id"])
    assert counted == aggregate
    assert counted[:2] == (4, 2000) and counted[5:8] == (87000, 4, round((30000 + 7000 + 7000 + 25000) / 4))
    assert counted[9] == {users[0]: 42000, users[1]: 7000, users[2]: 7000, bot_user.id: 31000}
    chart = (await admin.get(f"{ADMIN}/{campaign['id']}/chart-data")).json()
    assert [(t["id"], t["total_earnings_kopeks"]) for t in chart["top_registrations"]] == [
        (users[0], 42000),
        (bot_user.id, 31000),
        (users[2], 7000),
        (users[1], 7000),
    ]

    # a payment seen again (a redelivery, or both the payment and the attribution) counts once
    async with db.session() as session:
        payment = (await session.exec(sa.select(CampaignPayment).limit(1))).scalar_one()

        def again(sync: Session) -> None:
            totals.count_payment(
                sync, campaign["id"], payment.user_id, payment.transaction_id, 99, utcnow().date()
            )

        await session.run_sync(again)
        await session.commit()
    assert (await oracle(db, campaign["id"]))[1] == counted

    # the migration's backfill computes the same counters from the rows
    async with db.engine.begin() as connection:
        for model in (CampaignPayer, CampaignPayment, CampaignDay, CampaignTotals):
            await connection.execute(sa.delete(model))
        await connection.run_sync(totals.backfill)
    assert (await oracle(db, campaign["id"]))[1] == counted
    stats_body = (await admin.get(f"{ADMIN}/{campaign['id']}/stats")).json()
    assert (
        stats_body["registrations"],
        stats_body["total_revenue_kopeks"],
        stats_body["paid_users_count"],
    ) == (
        4,
        87000,
        4,
    )

    # a registered user deleted (its registration and transactions go with it): the totals
    # forget it in the deleting transaction, and still equal the aggregates
    async with db.session() as session:
        await delete_user(app, session, await session.get(User, users[0]))
        await session.commit()
    aggregate, counted = await oracle(db, campaign["id"])
    assert counted == aggregate
    assert counted[:2] == (3, 1500) and counted[5:7] == (45000, 3)
    assert counted[9] == {users[1]: 7000, users[2]: 7000, bot_user.id: 31000}

"""A registration through a campaign link: attributed once (first touch), the bonus granted
once as a `campaign_bonus` transaction; repeats change nothing. (The campaign partner made the
referrer: the partners plugin's tests, where partners can be approved.)"""

from __future__ import annotations

import asyncio

from subsvc_billing.api import Transaction
from subsvc_cabinet_auth.api import CabinetAuthSettings
from subsvc_campaigns.attribution import on_user_created
from subsvc_campaigns.models import CampaignRegistration
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.events import Event, OutboxEvent

ADMIN = "/cabinet/admin/campaigns"


async def create(client, slug: str, **fields) -> dict:
    body = {
        "name": f"Campaign {slug}",
        "start_parameter": slug,
        "bonus_type": "balance",
        "balance_bonus_kopeks": 5000,
    }
    r = await client.post("/campaigns", json={**body, **fields})
    assert r.status_code == 201, r.text
    return r.json()


async def test_a_campaign_link_registration_gets_the_bonus_once(
    app, client, login, redeliver, rows, wait_for, reload
):
    campaign = await create(client, "summer")
    user_id = await login(9001, "summer")
    (registration,) = await wait_for(lambda: rows(CampaignRegistration))
    assert (registration.user_id, registration.campaign_id, registration.balance_bonus_kopeks) == (
        user_id,
        campaign["id"],
        5000,
    )
    user = await reload(User, user_id)
    assert (user.balance_kopeks, user.has_made_first_topup) == (5000, False)  # a bonus is no top-up
    (bonus,) = [t for t in await rows(Transaction) if t.user_id == user_id]
    assert (bonus.type, bonus.amount_kopeks, bonus.payment_method) == ("campaign_bonus", 5000, None)

    # a later login through another campaign, the event delivered twice more: nothing more
    await create(client, "autumn")
    assert await login(9001, "autumn") == user_id
    await redeliver(user_id)
    await redeliver(user_id)
    assert len(await rows(CampaignRegistration)) == 1
    assert (await reload(User, user_id)).balance_kopeks == 5000
    assert len([t for t in await rows(Transaction) if t.user_id == user_id]) == 1
    listed = (await client.get("/campaigns")).json()
    counts = {item["start_parameter"]: item["registrations_count"] for item in listed["items"]}
    assert counts == {"summer": 1, "autumn": 0}


async def test_unknown_or_inactive_campaigns_attribute_nothing(app, client, login, redeliver, rows):
    await create(client, "off", is_active=False)
    for messenger_id, slug in ((9101, "off"), (9102, "nope"), (9103, None)):
        await redeliver(await login(messenger_id, slug))
    assert await rows(CampaignRegistration) == []
    assert await rows(Transaction) == []


async def test_a_deep_link_login_attributes_the_account_the_bot_made(
    client, anon_client, insert_user, rows, wait_for, reload, change_settings
):
    """The bot made the account (``user.created`` knew no campaign); the cabinet's deep-link
    login records the slug afterwards, and its event attributes the user."""
    change_settings(CabinetAuthSettings, BOT_USERNAME="subsvc_test_bot")
    await create(client, "winter", balance_bonus_kopeks=700)
    token = (await anon_client.post("/cabinet/auth/deeplink/request")).json()["token"]
    user = await insert_user(messenger_id=9400)
    confirmed = await client.post("/auth/deeplink/confirm", json={"token": token, "messenger_id": 9400})
    assert confirmed.status_code == 200, confirmed.text
    polled = await anon_client.post(
        "/cabinet/auth/deeplink/poll", json={"token": token, "campaign_slug": "winter"}
    )
    assert polled.status_code == 200, polled.text
    (registration,) = await wait_for(lambda: rows(CampaignRegistration))
    assert registration.user_id == user.id
    assert (await reload(User, user.id)).balance_kopeks == 700


async def test_a_bot_registration_with_the_start_parameter_gets_the_bonus_once(
    app, client, rows, wait_for, reload
):
    """The bot's ``POST /users`` with ``start_parameter``: attributed at once, a redelivered
    ``user.created`` (the outbox row's own payload) grants nothing more."""
    campaign = await create(client, "botlink", balance_bonus_kopeks=1200)
    made = await client.post("/users", json={"messenger_id": 9700, "start_parameter": "botlink"})
    assert made.status_code == 201, made.text
    user_id = made.json()["id"]
    (registration,) = await wait_for(lambda: rows(CampaignRegistration))
    assert (registration.user_id, registration.campaign_id) == (user_id, campaign["id"])
    (event,) = [e for e in await rows(OutboxEvent) if e.event_type == "user.created"]
    again = Event(id=event.id, type=event.event_type, payload=event.payload, created_at=utcnow())
    for _ in range(2):
        await on_user_created(app, again)
    assert len(await rows(CampaignRegistration)) == 1
    assert (await reload(User, user_id)).balance_kopeks == 1200
    assert [t.amount_kopeks for t in await rows(Transaction) if t.user_id == user_id] == [1200]


async def test_concurrent_deliveries_grant_one_bonus(client, login, redeliver, rows, reload):
    await create(client, "race", balance_bonus_kopeks=900)
    user_id = await login(9601, "race")
    await asyncio.gather(*(redeliver(user_id) for _ in range(4)))
    assert [r.user_id for r in await rows(CampaignRegistration)] == [user_id]
    assert (await reload(User, user_id)).balance_kopeks == 900
    assert len([t for t in await rows(Transaction) if t.user_id == user_id]) == 1

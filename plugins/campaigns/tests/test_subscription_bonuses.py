"""Subscription-days and tariff bonuses: a trial or a tariff's subscription made once."""

from __future__ import annotations

from subsvc_campaigns.models import CampaignRegistration
from subsvc_subscriptions.api import Subscription
from subsvc_tariffs.api import Tariff

from subsvc.testing import stored


async def test_a_subscription_bonus_makes_a_trial_once(client, login, redeliver, rows):
    made = await client.post(
        "/campaigns",
        json={
            "name": "Days",
            "start_parameter": "days",
            "bonus_type": "subscription",
            "subscription_duration_days": 5,
            "subscription_traffic_gb": 10,
            "subscription_device_limit": 2,
            "subscription_squads": ["sq-1"],
        },
    )
    assert made.status_code == 201, made.text
    user_id = await login(9501, "days")
    await redeliver(user_id)
    await redeliver(user_id)
    (subscription,) = [s for s in await rows(Subscription) if s.user_id == user_id]
    assert (subscription.is_trial, subscription.traffic_limit_gb, subscription.device_limit) == (True, 10, 2)
    assert subscription.connected_squads == ["sq-1"]
    assert 4 <= (subscription.end_date - subscription.start_date).days <= 5
    (registration,) = await rows(CampaignRegistration)
    assert registration.subscription_duration_days == 5


async def test_a_tariff_bonus_makes_a_paid_subscription_of_the_tariff(client, db, login, redeliver, rows):
    tariff = await stored(
        db, Tariff(name="Pro", traffic_limit_gb=50, device_limit=3, allowed_squads=["sq-2"])
    )
    made = await client.post(
        "/campaigns",
        json={
            "name": "Pro",
            "start_parameter": "pro",
            "bonus_type": "tariff",
            "tariff_id": tariff.id,
            "tariff_duration_days": 30,
        },
    )
    assert made.status_code == 201, made.text
    assert made.json()["tariff_name"] == "Pro"
    user_id = await login(9502, "pro")
    await redeliver(user_id)
    (subscription,) = [s for s in await rows(Subscription) if s.user_id == user_id]
    assert (subscription.is_trial, subscription.tariff_id, subscription.device_limit) == (False, tariff.id, 3)
    assert subscription.connected_squads == ["sq-2"]

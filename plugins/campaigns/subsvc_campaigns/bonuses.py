"""The subscription and tariff bonuses, through the subscriptions plugin's public API (its
events put the panel's writes on panel_sync's queue in the same transaction).

- ``subscription``: the user's live subscription is extended by the days; without one a trial
  is created with the campaign's traffic (0 = unlimited), devices (default: the subscriptions
  plugin's ``DEFAULT_DEVICE_LIMIT``) and squads.
- ``tariff``: the user's live subscription of that tariff is extended; without one a paid
  subscription of the tariff (its limits and squads) is created, unless the user holds another
  subscription and ``MULTI_TARIFF_ENABLED`` is off (then no bonus). An inactive or deleted
  tariff gives nothing.
"""

from __future__ import annotations

import logging

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import SubscriptionSettings, Terms, create_paid, create_trial, extend, of_user
from subsvc_tariffs.api import lock_for_use
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_campaigns.models import Campaign

log = logging.getLogger("subsvc.campaigns")


async def grant_subscription(app: Starlette, session: AsyncSession, user: User, campaign: Campaign) -> bool:
    """The subscription-days bonus; whether one was given."""
    days = campaign.subscription_duration_days or 0
    if days <= 0 or user.id is None:
        return False
    events, now = services(app).events, utcnow()
    live = await of_user(session, user.id, live_only=True, for_update=True)
    if live:
        await extend(session, events, live[0], days, now=now)
        return True
    settings = SubscriptionSettings.of(app)
    terms = Terms(
        tariff_id=None,
        days=days,
        traffic_limit_gb=campaign.subscription_traffic_gb or 0,
        device_limit=campaign.subscription_device_limit or settings.DEFAULT_DEVICE_LIMIT,
        squads=[str(squad) for squad in campaign.subscription_squads],
    )
    await create_trial(session, events, settings, user, terms, now=now)
    return True


async def grant_tariff(app: Starlette, session: AsyncSession, user: User, campaign: Campaign) -> bool:
    """The tariff bonus; whether one was given."""
    days = campaign.tariff_duration_days or 0
    if days <= 0 or campaign.tariff_id is None or user.id is None:
        return False
    tariff = await lock_for_use(session, campaign.tariff_id)
    if tariff is None or not tariff.is_active:
        log.info("campaign %s: tariff %s unavailable, no bonus", campaign.id, campaign.tariff_id)
        return False
    events, now = services(app).events, utcnow()
    settings = SubscriptionSettings.of(app)
    held = await of_user(session, user.id, tariff_id=tariff.id, live_only=True, for_update=True)
    if held:
        await extend(session, events, held[0], days, now=now)
        return True
    if await of_user(session, user.id, live_only=True) and not settings.MULTI_TARIFF_ENABLED:
        return False
    terms = Terms(
        tariff_id=tariff.id,
        days=days,
        traffic_limit_gb=tariff.traffic_limit_gb,
        device_limit=tariff.device_limit,
        squads=list(tariff.allowed_squads),
    )
    await create_paid(session, events, settings, user, terms, now=now)
    return True

"""First-touch attribution: a new user who arrived with a campaign's start parameter is
registered in it once (the unique ``user_id`` of the registrations), the campaign partner
becomes the user's referrer when there is none, and the bonus is granted in the same
transaction as the registration — a second delivery finds the registration and does nothing.

Entry points: the ``user.created`` and ``cabinet.first_campaign_recorded`` events; the slug
is the bot's start parameter of the Web API's ``POST /users`` (carried by ``user.created``),
else the one cabinet_auth recorded for the account
(:func:`subsvc_cabinet_auth.api.first_campaign`)."""

from __future__ import annotations

import logging

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import CAMPAIGN_BONUS, Transaction, move_balance
from subsvc_cabinet_auth.api import first_campaign
from subsvc_users.api import User, UserRuleError, set_referrer

from subsvc.db import utcnow
from subsvc.events import Event
from subsvc.services import services
from subsvc_campaigns import totals
from subsvc_campaigns.bonuses import grant_subscription, grant_tariff
from subsvc_campaigns.models import Campaign, CampaignRegistration
from subsvc_campaigns.stats import PAID

log = logging.getLogger("subsvc.campaigns")


async def _register(session: AsyncSession, campaign: Campaign, user_id: int) -> bool:
    """Insert the user's registration unless the user has one (any campaign) and count it
    with the payments the user made before; whether it did."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    bonus_kopeks = campaign.balance_bonus_kopeks if campaign.bonus_type == "balance" else 0
    values = {
        "campaign_id": campaign.id,
        "user_id": user_id,
        "bonus_type": campaign.bonus_type,
        "balance_bonus_kopeks": bonus_kopeks,
        "subscription_duration_days": campaign.subscription_duration_days,
        "tariff_id": campaign.tariff_id,
        "tariff_duration_days": campaign.tariff_duration_days,
        "created_at": now,
    }
    statement = insert(CampaignRegistration).values(values).on_conflict_do_nothing(index_elements=["user_id"])
    if not (await session.exec(statement)).rowcount:
        return False
    assert campaign.id is not None
    campaign_id = campaign.id
    paid = select(Transaction.id, Transaction.amount_kopeks, Transaction.created_at).where(
        col(Transaction.user_id) == user_id, PAID
    )
    payments = (await session.exec(paid)).all()

    def count(sync: Session) -> None:
        totals.count_registration(sync, campaign_id, campaign.bonus_type, bonus_kopeks, now)
        totals.count_user_payments(sync, campaign_id, user_id, payments)

    await session.run_sync(count)
    return True


async def _link_partner(app: Starlette, session: AsyncSession, user: User, partner_id: int | None) -> None:
    if partner_id is None or user.referred_by_id is not None:
        return
    partner = await session.get(User, partner_id)
    if partner is None:
        return
    try:
        async with session.begin_nested():
            await set_referrer(app, session, user, partner)
    except UserRuleError:  # a cycle: the partner was referred by this user
        log.info("campaign partner %s cannot refer user %s", partner_id, user.id)


async def attribute(app: Starlette, session: AsyncSession, user_id: int, slug: str) -> bool:
    """Register ``user_id`` in the active campaign ``slug`` and grant its bonus, in the
    caller's transaction; whether this call did (false: unknown or inactive campaign, the
    user is its partner, or the user is registered already)."""
    query = select(Campaign).where(col(Campaign.start_parameter) == slug, col(Campaign.is_active))
    campaign = (await session.exec(query)).first()
    if campaign is None or campaign.partner_user_id == user_id:
        return False
    user = await session.get(User, user_id, with_for_update=True)
    if user is None or not await _register(session, campaign, user_id):
        return False
    await _link_partner(app, session, user, campaign.partner_user_id)
    if campaign.bonus_type == "balance" and campaign.balance_bonus_kopeks > 0:
        await move_balance(
            session,
            services(app).events,
            user_id,
            campaign.balance_bonus_kopeks,
            type=CAMPAIGN_BONUS,
            description=f"Bonus for registration via campaign '{campaign.name}'",
            topup=False,
        )
    elif campaign.bonus_type == "subscription":
        await grant_subscription(app, session, user, campaign)
    elif campaign.bonus_type == "tariff":
        await grant_tariff(app, session, user, campaign)
    return True


async def on_user_created(app: Starlette, event: Event) -> None:
    """``user.created`` / ``cabinet.first_campaign_recorded``: attribute the user to the
    campaign of the bot's start parameter (``user.created`` of ``POST /users``), else to the
    one cabinet_auth recorded (at least once delivery: a repeat finds the registration)."""
    user_id = int(event.payload["user_id"])
    async with services(app).db.session() as session:
        arrival = await first_campaign(session, user_id)
        slugs = [event.payload.get("start_parameter"), arrival.campaign_slug if arrival else None]
        for slug in filter(None, slugs):
            if await attribute(app, session, user_id, slug):
                await session.commit()
                log.info("user %s attributed to campaign %r", user_id, slug)
                return

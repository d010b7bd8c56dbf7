"""Commissions and first-top-up bonuses (behaviours-referrals §3), paid once per payment.

Every provider top-up of a referred user (``balance.topped_up``) is processed in ONE
transaction: the referrer's earning is keyed by the payment (``topup:<payment id>``), the
referee's qualifying first top-up is claimed by a row of its own; the claim, both bonuses,
the commission and their billing transactions commit together or not at all. A second
delivery of the event finds the payment's earning and does nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.events import Event
from subsvc.services import services
from subsvc_referrals.config import ReferralConfig
from subsvc_referrals.earnings import credit_reward, individual_percent, insert_once, record_earning
from subsvc_referrals.models import COMMISSION, FIRST_TOPUP, PAID_REASONS, ReferralEarning, ReferralFirstTopup
from subsvc_referrals.notices import notify
from subsvc_referrals.store import referral_settings
from subsvc_referrals.summaries import user_campaign
from subsvc_referrals.tiers import tier_percent

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Paid:
    """What one top-up paid: to the referrer (bonus + commission) and to the referee."""

    referrer_id: int
    referee_id: int
    referrer_kopeks: int
    referee_kopeks: int
    first_topup: bool


def payment_key(payment_id: int) -> str:
    return f"topup:{payment_id}"


async def _pair_payments(session: AsyncSession, referrer_id: int, referee_id: int) -> int:
    query = select(func.count()).where(
        col(ReferralEarning.user_id) == referrer_id,
        col(ReferralEarning.referral_id) == referee_id,
        col(ReferralEarning.reason).in_(PAID_REASONS),
    )
    return int((await session.exec(query)).one())


async def _paying_referees(session: AsyncSession, referrer_id: int) -> int:
    query = select(func.count()).where(col(ReferralFirstTopup.referrer_id) == referrer_id)
    return int((await session.exec(query)).one())


async def commission_percent(
    app: Starlette, session: AsyncSession, config: ReferralConfig, referrer_id: int, pair_payments: int
) -> int:
    """§3's percent: the pair's first payment takes the first-payment percent (else the base);
    later ones the tier reached by the referrer's paying referees (else the base). The base is
    the referrer's individual percent, else the global one."""
    base = await individual_percent(app, session, referrer_id)
    if base is None:
        base = config.commission_percent
    if pair_payments == 0:
        first = config.first_payment_commission_percent
        return base if first is None else first
    if config.tiers:
        tier = tier_percent(config.tiers, await _paying_referees(session, referrer_id))
        if tier is not None:
            return tier
    return base


async def _claim_first_topup(
    session: AsyncSession, referee_id: int, referrer_id: int, payment_id: int
) -> bool:
    """Claim the referee's qualifying first top-up; ``False`` when it was claimed before."""
    claim = ReferralFirstTopup(referee_id=referee_id, referrer_id=referrer_id, payment_id=payment_id)
    return await insert_once(session, claim)


async def process_topup(
    app: Starlette, session: AsyncSession, *, user_id: int, payment_id: int, amount_kopeks: int
) -> Paid | None:
    """Pay what a top-up of ``amount_kopeks`` by ``user_id`` earns, in the caller's
    transaction; ``None`` when it earns nothing or was processed before."""
    config = await referral_settings(app)
    if not config.enabled or amount_kopeks <= 0:
        return None
    referee = await session.get(User, user_id, with_for_update=True)
    if referee is None or referee.referred_by_id is None:
        return None
    referrer_id = referee.referred_by_id
    key = payment_key(payment_id)
    done = select(col(ReferralEarning.id)).where(col(ReferralEarning.key) == key)
    if (await session.exec(done)).first() is not None:
        return None
    pair_payments = await _pair_payments(session, referrer_id, user_id)
    percent = await commission_percent(app, session, config, referrer_id, pair_payments)
    commission = amount_kopeks * percent // 100
    campaign_id = await user_campaign(app, session, user_id)
    qualifying = amount_kopeks >= config.minimum_topup_kopeks
    first = qualifying and await _claim_first_topup(session, user_id, referrer_id, payment_id)
    if first:
        amount, reason = config.inviter_bonus_kopeks + commission, FIRST_TOPUP
        note, bonus = "Бонус за первое пополнение реферала", config.first_topup_bonus_kopeks
    else:
        limit = config.max_commission_payments
        if commission <= 0 or (limit > 0 and pair_payments >= limit):
            return None
        amount, reason = commission, COMMISSION
        note, bonus = f"Реферальная комиссия {percent}%", 0
    await record_earning(
        app,
        session,
        earner_id=referrer_id,
        referral_id=user_id,
        amount_kopeks=amount,
        reason=reason,
        key=key,
        campaign_id=campaign_id,
        description=note,
    )
    if bonus > 0:
        text = "Бонус за первое пополнение по реферальной программе"
        await credit_reward(app, session, user_id, bonus, text)
    paid = Paid(referrer_id, user_id, amount, bonus, first)
    if config.notifications_enabled:
        notify(app, session, paid)
    return paid


async def on_topped_up(app: Starlette, event: Event) -> None:
    """``balance.topped_up``: process the top-up in a transaction of its own (a failure rolls
    all of it back; a later delivery pays it then)."""
    payload = event.payload
    async with services(app).db.session() as session:
        paid = await process_topup(
            app,
            session,
            user_id=int(payload["user_id"]),
            payment_id=int(payload["payment_id"]),
            amount_kopeks=int(payload["amount_kopeks"]),
        )
        if paid is not None:
            await session.commit()

"""The advisory risk score of a withdrawal request (0..100): how much the money looks farmed
rather than earned. Nothing is refused on it; the administrator decides."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_billing.api import DEPOSIT, Transaction
from subsvc_referrals.api import ReferralEarning
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc_partners.money import Standing
from subsvc_partners.settings import PartnersSettings

ONE_PAYER_EARNINGS_KOPEKS = 50000
MANY_EARNINGS_IN_A_WEEK = 20


def level(score: int) -> str:
    """``critical`` (>= 70), ``high`` (>= 50), ``medium`` (>= 30) or ``low``."""
    if score >= 70:
        return "critical"
    if score >= 50:
        return "high"
    return "medium" if score >= 30 else "low"


RECOMMENDATION = {"critical": "reject", "high": "review", "medium": "review", "low": "approve"}


async def _own_deposits(session: AsyncSession, user_id: int) -> int:
    query = select(sa.func.coalesce(sa.func.sum(Transaction.amount_kopeks), 0)).where(
        col(Transaction.user_id) == user_id,
        col(Transaction.type) == DEPOSIT,
        col(Transaction.payment_method).is_not(None),
        col(Transaction.is_completed),
    )
    return int((await session.exec(query)).one())


async def analyse(
    session: AsyncSession, settings: PartnersSettings, user_id: int, money: Standing
) -> tuple[int, dict[str, Any]]:
    """The score and its reasons, from the user's and their referees' payments."""
    score, flags = 0, list[str]()
    own = await _own_deposits(session, user_id)
    ratio = settings.REFERRAL_WITHDRAWAL_SUSPICIOUS_NO_PURCHASES_RATIO
    if own > 0 and money.spending == 0:
        score, flags = score + 40, [*flags, "deposits_without_purchases"]
    elif money.spending > 0 and own > money.spending * ratio:
        score, flags = score + 25, [*flags, "deposits_far_above_purchases"]
    referees = (
        await session.exec(
            select(User.id, User.has_made_first_topup).where(col(User.referred_by_id) == user_id)
        )
    ).all()
    if not referees and money.total_earned > 0:
        score, flags = score + 50, [*flags, "earnings_without_referees"]
    since = utcnow() - timedelta(days=30)
    per_referee = (
        (
            await session.exec(
                select(Transaction.user_id, sa.func.count(), sa.func.sum(Transaction.amount_kopeks))
                .where(
                    col(Transaction.user_id).in_([r[0] for r in referees]),
                    col(Transaction.type) == DEPOSIT,
                    col(Transaction.payment_method).is_not(None),
                    col(Transaction.created_at) >= since,
                )
                .group_by(col(Transaction.user_id))
            )
        ).all()
        if referees
        else []
    )
    suspicious = []
    for referee_id, count, total in per_referee:
        points = 0
        if count > settings.REFERRAL_WITHDRAWAL_SUSPICIOUS_MAX_DEPOSITS_PER_MONTH:
            points += 15
        if int(total) > settings.REFERRAL_WITHDRAWAL_SUSPICIOUS_MIN_DEPOSIT_KOPEKS:
            points += 10
        if points:
            score += points
            suspicious.append({"user_id": referee_id, "deposits": count, "amount_kopeks": int(total)})
    paying = sum(1 for _id, paid in referees if paid)
    if paying == 1 and money.total_earned > ONE_PAYER_EARNINGS_KOPEKS:
        score, flags = score + 20, [*flags, "one_paying_referee"]
    recent = (
        await session.exec(
            select(sa.func.count()).where(
                col(ReferralEarning.user_id) == user_id,
                col(ReferralEarning.created_at) >= utcnow() - timedelta(days=7),
            )
        )
    ).one()
    if recent > MANY_EARNINGS_IN_A_WEEK:
        score, flags = score + 15, [*flags, "many_earnings_this_week"]
    score = min(score, 100)
    analysis = {
        "risk_score": score,
        "risk_level": level(score),
        "recommendation": RECOMMENDATION[level(score)],
        "flags": flags,
        "own_deposits_kopeks": own,
        "spending_kopeks": money.spending,
        "total_earned_kopeks": money.total_earned,
        "referees": len(referees),
        "paying_referees": paying,
        "suspicious_referees": suspicious,
    }
    return score, analysis

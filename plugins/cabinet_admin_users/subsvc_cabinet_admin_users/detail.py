"""The detail of a user as administrators see it, and the pieces other answers share
(a subscription with its traffic purchases, a transaction with its sign)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing import api as billing
from subsvc_billing.api import WITHDRAWAL, Transaction
from subsvc_promo_groups.api import find_group
from subsvc_subscriptions.api import Subscription, SubscriptionStatus, TrafficPurchase
from subsvc_users.api import User

from subsvc.api import INT64_MAX, from_attributes
from subsvc.db import utcnow
from subsvc_cabinet_admin_users import listing
from subsvc_cabinet_admin_users.lookup import (
    admin_settings,
    current_subscription,
    find_user,
    full_name,
    user_answer,
    user_subscriptions,
)
from subsvc_cabinet_admin_users.names import tariff_names
from subsvc_cabinet_admin_users.schemas import (
    TrafficPurchaseItem,
    UserDetailResponse,
    UserReferralInfo,
    UserSubscriptionInfo,
    UserTransactionItem,
)

# money leaving the balance: shown negative whatever sign the row stores
EXPENSE_TYPES = frozenset({WITHDRAWAL, listing.SUBSCRIPTION_PAYMENT, "gift_payment"})
REFERRAL_REWARD = "referral_reward"


def _days_left(end: datetime, now: datetime) -> int:
    return max(0, (end - now).days)


async def subscription_info(
    app: Starlette,
    session: AsyncSession,
    subscription: Subscription,
    now: datetime | None = None,
    names: Mapping[int, str] | None = None,
) -> UserSubscriptionInfo:
    """A subscription with its traffic purchases (newest first) and its tariff's name (from
    ``names``, else asked of the plugin keeping tariffs). No recurring payment provider runs
    here, so ``sbp_recurring_*`` are null."""
    now = now or utcnow()
    if names is None:
        names = await tariff_names(app, session, [subscription.tariff_id])
    query = (
        select(TrafficPurchase)
        .where(col(TrafficPurchase.subscription_id) == subscription.id)
        .order_by(col(TrafficPurchase.created_at).desc(), col(TrafficPurchase.id).desc())
    )
    purchases = [
        from_attributes(
            TrafficPurchaseItem,
            p,
            days_remaining=_days_left(p.expires_at, now),
            is_expired=now >= p.expires_at,
        )
        for p in (await session.exec(query)).all()
    ]
    live = subscription.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIAL)
    return from_attributes(
        UserSubscriptionInfo,
        subscription,
        is_active=live and subscription.end_date > now,
        days_remaining=_days_left(subscription.end_date, now),
        traffic_purchases=purchases,
        tariff_name=names.get(subscription.tariff_id) if subscription.tariff_id is not None else None,
    )


def transaction_item(row: Transaction) -> UserTransactionItem:
    amount = -abs(row.amount_kopeks) if row.type in EXPENSE_TYPES else row.amount_kopeks
    return from_attributes(
        UserTransactionItem, row, amount_kopeks=amount, amount_rubles=round(amount / 100, 2)
    )


async def transactions(
    session: AsyncSession, user_id: int, transaction_type: str | None, limit: int, offset: int
) -> tuple[int, list[UserTransactionItem]]:
    """The user's transactions, newest first (billing's list)."""
    filters = billing.TransactionFilter(user_id=user_id, type=transaction_type)
    if offset > INT64_MAX - limit:  # no row is that far; the database would refuse the number
        count = select(func.count()).select_from(Transaction).where(*filters.conditions())
        return (await session.exec(count)).one(), []
    total, rows = await billing.list_transactions(session, filters, limit, offset)
    return total, [transaction_item(row) for row in rows]


async def _referral(session: AsyncSession, user: User, commission: int | None) -> UserReferralInfo:
    """The user's referral standing. Earnings are the ``referral_reward`` transactions."""
    referrals = (
        await session.exec(select(func.count()).select_from(User).where(col(User.referred_by_id) == user.id))
    ).one()
    earned = (
        await session.exec(
            select(func.coalesce(func.sum(col(Transaction.amount_kopeks)), 0)).where(
                col(Transaction.user_id) == user.id,
                col(Transaction.type) == REFERRAL_REWARD,
                col(Transaction.is_completed),
            )
        )
    ).one()
    referrer_name = None
    if user.referred_by_id is not None:
        referrer = await find_user(session, user.referred_by_id)
        if referrer is not None:
            referrer_name = referrer.username or full_name(referrer)
    return UserReferralInfo(
        referral_code=user.referral_code or "",
        referrals_count=int(referrals),
        total_earnings_kopeks=int(earned),
        commission_percent=commission,
        referred_by_id=user.referred_by_id,
        referred_by_username=referrer_name,
    )


async def user_detail(app: Starlette, session: AsyncSession, user: User, recent: int) -> UserDetailResponse:
    """Everything administrators see of a user, with the ``recent`` newest transactions and
    every subscription (newest first; ``subscription`` is the current one).

    Promo codes, promo offers, campaigns and lifetime panel traffic are not kept by any
    installed plugin yet: those fields answer zero or null; the panel's numeric id is null
    (the panel spoken here names accounts by uuid).
    """
    assert user.id is not None
    now = utcnow()
    subscription = await current_subscription(session, user.id)
    every = await user_subscriptions(session, user.id)
    names = await tariff_names(app, session, [s.tariff_id for s in every])
    infos = {s.id: await subscription_info(app, session, s, now, names) for s in every}
    group = await find_group(session, user.promo_group_id) if user.promo_group_id is not None else None
    settings = await admin_settings(session, user.id)
    spent, purchases = (await listing.spending_of(session, [user.id])).get(user.id, (0, 0))
    _, recent_items = await transactions(session, user.id, None, recent, 0) if recent else (0, [])
    return user_answer(
        UserDetailResponse,
        user,
        subscription=infos.get(subscription.id) if subscription else None,
        subscriptions=list(infos.values()),
        promo_group=group,  # read as UserPromoGroupInfo
        referral=await _referral(session, user, settings.referral_commission_percent if settings else None),
        total_spent_kopeks=spent,
        purchase_count=purchases,
        restriction_topup=bool(settings and settings.restriction_topup),
        restriction_subscription=bool(settings and settings.restriction_subscription),
        restriction_reason=settings.restriction_reason if settings else None,
        recent_transactions=recent_items,
        panel_uuid=settings.panel_uuid if settings else None,
    )

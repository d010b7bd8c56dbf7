"""The mini app's dashboard built from the other plugins' public data: the user, their
balance and recent transactions, the subscription the cabinet would show (subscriptions'
``resolve``), its traffic packages and autopay. What the project does not have yet (promo
offers, referral figures, branding, FAQ...) is answered empty or null."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import Transaction
from subsvc_pricing.api import PricingSettings
from subsvc_subscriptions.api import (
    Subscription,
    SubscriptionSettings,
    TrafficPurchase,
    actual_status,
    resolve,
)
from subsvc_tariffs.api import Tariff, find_tariff
from subsvc_users.api import User

from subsvc.api import from_attributes, price_label, rubles
from subsvc.db import utcnow
from subsvc_miniapp.dashboard_schemas import (
    MiniAppCurrentTariff,
    MiniAppSubscriptionAutopay,
    MiniAppSubscriptionResponse,
    MiniAppSubscriptionUser,
    MiniAppTrafficPurchase,
    MiniAppTransaction,
)

RECENT_TRANSACTIONS = 10
AUTOPAY_DAYS_OPTIONS = [1, 2, 3, 4, 5, 6, 7]
DEFAULT_AUTOPAY_DAYS = 3
SPENDING = "subscription_payment"
STATUS_LABELS = {
    "active": "Активна",
    "trial": "Пробная",
    "expired": "Истекла",
    "disabled": "Отключена",
    "limited": "Ограничена",
    "pending": "Ожидает оплаты",
    "none": "Нет подписки",
}


def gb_label(gb: float | None) -> str:
    """``0`` or none -> ``Безлимит``; else ``"12 ГБ"`` / ``"1.5 ГБ"``."""
    if not gb:
        return "Безлимит"
    return f"{gb:g} ГБ"


def autopay_of(subscription: Subscription | None) -> MiniAppSubscriptionAutopay:
    """The subscription's autopay in every spelling the contract has."""
    enabled = bool(subscription and subscription.autopay_enabled)
    days = subscription.autopay_days_before if subscription else None
    return MiniAppSubscriptionAutopay(
        enabled=enabled,
        autopay_enabled=enabled,
        days_before=days,
        autopay_days_before=days,
        default_days_before=DEFAULT_AUTOPAY_DAYS,
        autopay_days_options=AUTOPAY_DAYS_OPTIONS,
        days_options=AUTOPAY_DAYS_OPTIONS,
        options=AUTOPAY_DAYS_OPTIONS,
    )


async def current_subscription(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None = None
) -> Subscription | None:
    """The subscription the cabinet means for this user (an id: one of theirs)."""
    multi = SubscriptionSettings.of(app).MULTI_TARIFF_ENABLED
    return await resolve(session, user_id, subscription_id, multi=multi)


def _user(user: User, subscription: Subscription | None, now: datetime) -> MiniAppSubscriptionUser:
    stored = subscription.status if subscription else "none"
    actual = actual_status(subscription.status, subscription.end_date, now) if subscription else "none"
    used = subscription.traffic_used_gb if subscription else 0.0
    limit = subscription.traffic_limit_gb if subscription else None
    names = [name for name in (user.first_name, user.last_name) if name]
    return MiniAppSubscriptionUser(
        messenger_id=user.messenger_id,
        username=user.username,
        first_name=user.first_name,
        last_name=user.last_name,
        display_name=" ".join(names) or user.username or f"ID{user.messenger_id or user.id}",
        language=user.language,
        status=str(user.status),
        subscription_status=stored,
        subscription_actual_status=actual,
        status_label=STATUS_LABELS.get(actual, actual),
        expires_at=subscription.end_date.isoformat() if subscription else None,
        device_limit=subscription.device_limit if subscription else None,
        traffic_used_gb=round(used, 2),
        traffic_used_label=f"{used:.1f} ГБ",
        traffic_limit_gb=limit,
        traffic_limit_label=gb_label(limit),
        has_active_subscription=actual in ("active", "trial"),
        is_daily_paused=bool(subscription and subscription.is_daily_paused),
    )


async def _transactions(session: AsyncSession, user_id: int) -> list[MiniAppTransaction]:
    query = (
        select(Transaction)
        .where(col(Transaction.user_id) == user_id)
        .order_by(col(Transaction.created_at).desc(), col(Transaction.id).desc())
        .limit(RECENT_TRANSACTIONS)
    )
    return [
        from_attributes(
            MiniAppTransaction,
            row,
            id=row.id or 0,
            amount_rubles=rubles(row.amount_kopeks),
            created_at=row.created_at.isoformat(),
            completed_at=row.completed_at.isoformat() if row.completed_at else None,
        )
        for row in (await session.exec(query)).all()
    ]


async def _spent(session: AsyncSession, user_id: int) -> int:
    total = select(func.coalesce(func.sum(func.abs(col(Transaction.amount_kopeks))), 0)).where(
        col(Transaction.user_id) == user_id, col(Transaction.type) == SPENDING
    )
    return int((await session.exec(total)).one())


async def _traffic_purchases(
    session: AsyncSession, subscription: Subscription, now: datetime
) -> list[MiniAppTrafficPurchase]:
    query = (
        select(TrafficPurchase)
        .where(col(TrafficPurchase.subscription_id) == subscription.id, col(TrafficPurchase.expires_at) > now)
        .order_by(col(TrafficPurchase.expires_at))
    )
    answers = []
    for row in (await session.exec(query)).all():
        whole = max((row.expires_at - row.created_at).total_seconds(), 1.0)
        gone = min(max((now - row.created_at).total_seconds(), 0.0), whole)
        answers.append(
            MiniAppTrafficPurchase(
                id=row.id or 0,
                traffic_gb=row.traffic_gb,
                expires_at=row.expires_at.isoformat(),
                created_at=row.created_at.isoformat(),
                days_remaining=max(0, (row.expires_at - now).days),
                progress_percent=round(gone * 100 / whole, 1),
            )
        )
    return answers


def current_tariff(tariff: Tariff, subscription: Subscription) -> MiniAppCurrentTariff:
    """The subscription's tariff as the catalogue lists it (its list prices: the user's own
    prices are the sellers' operations')."""
    assert tariff.id is not None
    headroom = None
    if tariff.traffic_topup_enabled and tariff.max_topup_traffic_gb > 0:
        headroom = max(0, tariff.max_topup_traffic_gb - subscription.traffic_limit_gb)
    return MiniAppCurrentTariff(
        id=tariff.id,
        name=tariff.name,
        description=tariff.description,
        tier_level=tariff.tier_level,
        traffic_limit_gb=tariff.traffic_limit_gb,
        traffic_limit_label=gb_label(tariff.traffic_limit_gb),
        is_unlimited_traffic=tariff.traffic_limit_gb == 0,
        device_limit=tariff.device_limit,
        servers_count=len(tariff.allowed_squads),
        monthly_price_kopeks=int(tariff.period_prices.get("30", 0) or 0),
        traffic_topup_enabled=tariff.traffic_topup_enabled,
        max_topup_traffic_gb=tariff.max_topup_traffic_gb,
        available_topup_gb=headroom,
        is_daily=tariff.is_daily,
        daily_price_kopeks=tariff.daily_price_kopeks,
        daily_price_label=price_label(tariff.daily_price_kopeks) if tariff.is_daily else None,
    )


def _daily(user: MiniAppSubscriptionUser, tariff: Tariff, subscription: Subscription, now: datetime) -> None:
    """The daily tariff's fields of the user block."""
    user.is_daily_tariff = True
    user.daily_tariff_name = tariff.name
    user.daily_price_kopeks = tariff.daily_price_kopeks
    user.daily_price_label = price_label(tariff.daily_price_kopeks)
    last = subscription.last_daily_charge_at
    if last is not None and not subscription.is_daily_paused and last + timedelta(days=1) > now:
        user.daily_next_charge_at = (last + timedelta(days=1)).isoformat()


async def dashboard(app: Starlette, session: AsyncSession, user: User) -> MiniAppSubscriptionResponse:
    """Everything the mini app's main screen shows, for ``user``."""
    assert user.id is not None
    now = utcnow()
    subscription = await current_subscription(app, session, user.id)
    autopay = autopay_of(subscription)
    spent = await _spent(session, user.id)
    answer = MiniAppSubscriptionResponse(
        user=_user(user, subscription, now),
        balance_kopeks=user.balance_kopeks,
        balance_rubles=rubles(user.balance_kopeks),
        balance_currency="RUB",
        transactions=await _transactions(session, user.id),
        total_spent_kopeks=spent,
        total_spent_rubles=rubles(spent),
        total_spent_label=price_label(spent),
        subscription_type="none",
        autopay_days_options=AUTOPAY_DAYS_OPTIONS,
        autopay=autopay,
        autopay_settings=autopay,
        subscription_missing=subscription is None,
        subscription_missing_reason="not_found" if subscription is None else None,
        salesMode=PricingSettings.of(app).SALES_MODE,
    )
    if subscription is None:
        return answer
    tariff = await find_tariff(session, subscription.tariff_id) if subscription.tariff_id else None
    if tariff is not None:
        answer.currentTariff = current_tariff(tariff, subscription)
        if tariff.is_daily:
            _daily(answer.user, tariff, subscription, now)
    return answer.model_copy(
        update={
            "subscription_id": subscription.id,
            "subscription_url": subscription.subscription_url,
            "subscription_crypto_link": subscription.subscription_crypto_link,
            "links": [subscription.subscription_url] if subscription.subscription_url else [],
            "connected_squads": list(subscription.connected_squads),
            "traffic_purchases": await _traffic_purchases(session, subscription, now),
            "subscription_type": "trial" if subscription.is_trial else "paid",
            "autopay_enabled": subscription.autopay_enabled,
            "autopay_days_before": subscription.autopay_days_before,
        }
    )

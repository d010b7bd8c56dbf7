"""The cabinet's reads: the user's subscriptions as the cabinet shows them, the balance and
its history; and the removal of a subscription that has ended (release 4.1.0). Which
subscription is the user's current one, its status and the transactions come from the
subscriptions and billing services; this module only computes display fields, and the
plugins that know more (tariff names, daily prices) add theirs through the
``cabinet_subscription_extras`` hook.

Features that do not exist yet answer as the reference does without them: no server table
(``servers`` is empty), the traffic reset mode is the ``DEFAULT_TRAFFIC_RESET_STRATEGY``
setting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import TransactionFilter, list_transactions
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription, SubscriptionSettings, SubscriptionStatus, TrafficPurchase
from subsvc_users.api import User

from subsvc.api import HTTPError, fits_int32, from_attributes, rubles
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_cabinet.schemas import (
    BalanceResponse,
    CabinetTransaction,
    CabinetTransactionList,
    SubscriptionData,
    SubscriptionDeleted,
    SubscriptionListItem,
    TrafficPurchaseInfo,
)
from subsvc_cabinet.settings import CabinetSettings

DEFAULT_AUTOPAY_DAYS_BEFORE = 3
MAX_OFFSET = 2**62  # beyond any table; keeps a huge page number from overflowing the driver
USER_NOT_FOUND = "User not found"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
ACTIVE_NOT_DELETABLE = "Active subscriptions cannot be deleted"
UNDELETABLE = frozenset({*subscriptions.LIVE, SubscriptionStatus.LIMITED})

Values = Mapping[str, Any]


# --- subscriptions --------------------------------------------------------------------------------


def _values(item: BaseModel | Values) -> dict[str, Any]:
    """A subscription record (model or mapping) with ``actual_status`` as plain values."""
    return item.model_dump() if isinstance(item, BaseModel) else dict(item)


async def user_subscriptions(
    session: AsyncSession, user_id: int
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The user's current subscription (the user record's ``subscription``: the newest live
    one, else the newest that is not an unpaid pending trial) and all of them, newest first."""
    extras = (await subscriptions.record_extras(session, [user_id]))[user_id]
    current = extras["subscription"]
    return (_values(current) if current is not None else None), [_values(s) for s in extras["subscriptions"]]


def row_values(row: Subscription, now: datetime) -> dict[str, Any]:
    """A subscription row's columns and its ``actual_status`` at ``now``."""
    values = row.model_dump()
    values["actual_status"] = subscriptions.actual_status(row.status, row.end_date, now)
    return values


async def owned_subscription(session: AsyncSession, user_id: int, subscription_id: int) -> dict[str, Any]:
    """One of the user's subscriptions, or 404 ``Subscription not found``."""
    row = await subscriptions.get(session, subscription_id)
    if row is None or row.user_id != user_id:
        raise HTTPError(404, SUBSCRIPTION_NOT_FOUND)
    return row_values(row, utcnow())


def multi_tariff(app: Starlette) -> bool:
    """Whether a user may hold several subscriptions (the subscriptions plugin's setting)."""
    return SubscriptionSettings.of(app).MULTI_TARIFF_ENABLED


async def current_subscription(app: Starlette, session: AsyncSession, user_id: int) -> dict[str, Any] | None:
    """The subscription the cabinet shows without an id: in multi-tariff mode the active one
    (not daily first, then the most time left), else the user record's current one."""
    if not multi_tariff(app):
        return (await user_subscriptions(session, user_id))[0]
    now = utcnow()
    row = await subscriptions.resolve(session, user_id, None, multi=True, now=now)
    return None if row is None else row_values(row, now)


async def every_subscription(session: AsyncSession, user_id: int) -> list[dict[str, Any]]:
    """All of the user's subscriptions, newest first, with their ``actual_status``."""
    now = utcnow()
    return [row_values(row, now) for row in await subscriptions.of_user(session, user_id)]


async def delete_subscription(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int
) -> SubscriptionDeleted:
    """Remove one of the user's subscriptions that has ended (expired, disabled, an unpaid
    pending one) for good; a live one (active, trial, limited) is refused.

    The removal reaches the VPN panel through the panel integration's queue: the row is
    disabled first (``subscription.changed``, change ``disabled``, in this transaction), which
    the queue pushes as a disabled panel user even once the row is gone.
    """
    row = await subscriptions.resolve(session, user_id, subscription_id, multi=True, for_update=True)
    if row is None:
        raise HTTPError(404, SUBSCRIPTION_NOT_FOUND)
    status = subscriptions.actual_status(row.status, row.end_date, utcnow())
    if status in UNDELETABLE:
        raise HTTPError(400, ACTIVE_NOT_DELETABLE)
    await subscriptions.disable(session, services(app).events, row)
    await subscriptions.remove(session, [row])
    return SubscriptionDeleted(message="Subscription deleted", subscription_id=subscription_id)


async def live_traffic_purchases(
    session: AsyncSession, subscription_ids: Sequence[int], now: datetime
) -> dict[int, list[TrafficPurchase]]:
    """The unexpired traffic purchases of these subscriptions, soonest to expire first."""
    found: dict[int, list[TrafficPurchase]] = {}
    if not subscription_ids:
        return found
    query = (
        select(TrafficPurchase)
        .where(
            col(TrafficPurchase.subscription_id).in_(subscription_ids), col(TrafficPurchase.expires_at) > now
        )
        .order_by(col(TrafficPurchase.expires_at), col(TrafficPurchase.id))
    )
    for purchase in (await session.exec(query)).all():
        found.setdefault(purchase.subscription_id, []).append(purchase)
    return found


def time_left(end: datetime, now: datetime) -> tuple[int, int, int]:
    """Whole days, hours and minutes until ``end`` (zeros once it has passed)."""
    seconds = max(0, int((end - now).total_seconds()))
    return seconds // 86_400, seconds % 86_400 // 3_600, seconds % 3_600 // 60


def time_left_display(days: int, hours: int, minutes: int) -> str:
    """``"Nd Hh"``, ``"Hh Mm"``, ``"Mm"``, or ``"0m"``."""
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m"


def traffic_used_percent(used_gb: float, limit_gb: int) -> float:
    """Share of the limit used, at most 100, one decimal; 0 for an unlimited subscription."""
    if limit_gb <= 0:
        return 0.0
    return round(min(100.0, used_gb / limit_gb * 100), 1)


def purchase_info(purchase: TrafficPurchase, now: datetime) -> TrafficPurchaseInfo:
    """A traffic purchase with its remaining days and how much of its period has passed."""
    period = (purchase.expires_at - purchase.created_at).total_seconds()
    elapsed = (now - purchase.created_at).total_seconds()
    progress = 100.0 if period <= 0 else round(min(100.0, max(0.0, elapsed / period * 100)), 1)
    return from_attributes(
        TrafficPurchaseInfo,
        purchase,
        days_remaining=max(0, (purchase.expires_at - now).days),
        progress_percent=progress,
    )


def subscription_data(
    values: Values, purchases: Sequence[TrafficPurchase], settings: CabinetSettings, now: datetime
) -> SubscriptionData:
    """The cabinet's view of one subscription (``values``: its fields and ``actual_status``)."""
    status = values["actual_status"]
    expired = status == SubscriptionStatus.EXPIRED
    days, hours, minutes = (0, 0, 0) if expired else time_left(values["end_date"], now)
    used = float(values["traffic_used_gb"] or 0.0)
    autopay_days = values.get("autopay_days_before")
    return SubscriptionData(
        id=values["id"],
        status=status,
        is_trial=bool(values["is_trial"]) or status == SubscriptionStatus.TRIAL,
        start_date=values["start_date"],
        end_date=values["end_date"],
        days_left=days,
        hours_left=hours,
        minutes_left=minutes,
        time_left_display=time_left_display(days, hours, minutes),
        traffic_limit_gb=values["traffic_limit_gb"],
        traffic_used_gb=round(used, 2),
        traffic_used_percent=traffic_used_percent(used, values["traffic_limit_gb"]),
        device_limit=values["device_limit"],
        connected_squads=list(values.get("connected_squads") or []),
        servers=[],
        autopay_enabled=values["autopay_enabled"],
        autopay_days_before=DEFAULT_AUTOPAY_DAYS_BEFORE if autopay_days is None else autopay_days,
        subscription_url=values.get("subscription_url"),
        hide_subscription_link=settings.HIDE_SUBSCRIPTION_LINK,
        is_active=status in subscriptions.LIVE,
        is_expired=expired,
        is_limited=status == SubscriptionStatus.LIMITED,
        traffic_purchases=[purchase_info(p, now) for p in purchases],
        is_daily=values.get("last_daily_charge_at") is not None,
        is_daily_paused=bool(values.get("is_daily_paused")),
        tariff_id=values.get("tariff_id"),
        tariff_name=values.get("tariff_name"),
        traffic_reset_mode=settings.DEFAULT_TRAFFIC_RESET_STRATEGY,
    )


async def subscription_views(
    session: AsyncSession, items: Sequence[Values], settings: CabinetSettings
) -> list[SubscriptionData]:
    """The cabinet's view of several subscriptions (one query for their traffic purchases)."""
    now = utcnow()
    # a subscription with nothing purchased (the record says 0) has no purchases to look up
    buyers = [item["id"] for item in items if item.get("purchased_traffic_gb", 1) != 0]
    purchases = await live_traffic_purchases(session, buyers, now)
    return [subscription_data(item, purchases.get(item["id"], []), settings, now) for item in items]


async def views(app: Starlette, session: AsyncSession, items: Sequence[Values]) -> list[SubscriptionData]:
    """:func:`subscription_views` with the extras of every ``cabinet_subscription_extras``
    implementation merged over the cabinet's own fields."""
    shown = await subscription_views(session, items, CabinetSettings.of(app))
    answers = await services(app).plugins.call_all(
        "cabinet_subscription_extras", app=app, session=session, items=items
    )
    extras: dict[int, dict[str, Any]] = {}
    for answer in answers:
        for subscription_id, fields in answer.items():
            extras.setdefault(subscription_id, {}).update(fields)
    if not extras:
        return shown
    known = SubscriptionData.model_fields
    return [
        SubscriptionData.model_validate(
            {**view.model_dump(), **{k: v for k, v in extras.get(view.id, {}).items() if k in known}}
        )
        for view in shown
    ]


async def list_items(
    app: Starlette, session: AsyncSession, items: Sequence[Values]
) -> list[SubscriptionListItem]:
    """The multi-tariff list's items: the cabinet's view and each one's crypto link."""
    shown = await views(app, session, items)
    return [
        SubscriptionListItem(
            **view.model_dump(), subscription_crypto_link=item.get("subscription_crypto_link")
        )
        for view, item in zip(shown, items, strict=True)
    ]


# --- balance ---------------------------------------------------------------------------------------


async def get_user(session: AsyncSession, user_id: int) -> User:
    """The cabinet's user by internal id, or 404 ``User not found``."""
    user = await session.get(User, user_id) if fits_int32(user_id) else None
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    return user


async def balance(session: AsyncSession, user_id: int) -> BalanceResponse:
    user = await get_user(session, user_id)
    return BalanceResponse(balance_kopeks=user.balance_kopeks, balance_rubles=rubles(user.balance_kopeks))


async def transactions(
    session: AsyncSession, user_id: int, *, page: int, per_page: int, type: str | None
) -> CabinetTransactionList:
    """One page of the user's transactions, newest first (``type`` filters exactly)."""
    if not fits_int32(user_id):
        raise HTTPError(404, USER_NOT_FOUND)
    offset = min((page - 1) * per_page, MAX_OFFSET)
    total, rows = await list_transactions(
        session, TransactionFilter(user_id=user_id, type=type), per_page, offset
    )
    items = [
        from_attributes(CabinetTransaction, row, amount_rubles=rubles(row.amount_kopeks)) for row in rows
    ]
    return CabinetTransactionList(
        items=items, total=total, page=page, per_page=per_page, pages=math.ceil(total / per_page)
    )

"""The rules of subscriptions; no HTTP in here.

Every change sets ``panel_sync_state`` to ``pending`` and publishes ``subscription.changed``
in the same transaction (the outbox), so the panel integration sees each committed change.
Rows are changed under a row lock (``FOR UPDATE`` on PostgreSQL), so concurrent changes of
one subscription or one user's subscriptions apply one after the other.
"""

from __future__ import annotations

import functools
import json
import secrets
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, FromClause, Text, case, delete, func, true
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import SubscriptionSummary, User, record_paid_subscription

from subsvc.api import fits_int32, from_attributes
from subsvc.db import DriverSelect, UTCDateTime, in_list, is_short, utcnow
from subsvc.events import EventBus
from subsvc_subscriptions.models import PANEL_SYNC_PENDING, SHORT_ID_LENGTH, Subscription, TrafficPurchase
from subsvc_subscriptions.schemas import (
    ChangeKind,
    PanelAction,
    SubscriptionChanged,
    SubscriptionResponse,
    SubscriptionStatus,
)
from subsvc_subscriptions.settings import SubscriptionSettings

EVENT_CHANGED = "subscription.changed"
INT32 = range(-(2**31), 2**31)
LIVE = (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIAL)
PENDING = SubscriptionStatus.PENDING
REACTIVATED_BY_EXTEND = (
    SubscriptionStatus.EXPIRED,
    SubscriptionStatus.DISABLED,
    SubscriptionStatus.LIMITED,
    SubscriptionStatus.TRIAL,
)
REACTIVATED_BY_ADDON = (SubscriptionStatus.EXPIRED, SubscriptionStatus.DISABLED, SubscriptionStatus.LIMITED)
_SHORT_ID_ALPHABET = string.ascii_lowercase + string.digits

PAID_NEEDS_DAYS = "duration_days is required for paid subscriptions"
ALREADY_HAS = "User already has a subscription. Use replace_existing=true to replace it"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
SQUAD_REQUIRED = "squad_uuid is required"
END_OUT_OF_RANGE = "The subscription's end date would be out of range"
TRAFFIC_OUT_OF_RANGE = "The traffic limit would be out of range"
DEVICES_OUT_OF_RANGE = "The device limit would be out of range"


class RuleViolation(ValueError):
    """A change the rules refuse; the message is the answer (400)."""


class SubscriptionNotFound(LookupError):
    """The order names a subscription that is not the user's (404 ``Subscription not found``)."""


@dataclass(frozen=True)
class Order:
    """What ``create_or_replace`` is asked for (the request body, without the user)."""

    is_trial: bool = False
    days: int | None = None
    traffic_limit_gb: int | None = None
    device_limit: int | None = None
    squad_uuid: str | None = None
    connected_squads: Sequence[str] | None = None
    replace_existing: bool = False
    subscription_id: int | None = None
    """The user's subscription to replace (default: the current one)."""


# --- reading -------------------------------------------------------------------------------------


def actual_status(status: str, end_date: datetime | None, now: datetime) -> str:
    """The status as it is now: a stored ``active`` or ``trial`` whose end has passed is
    ``expired``; every other stored value is answered as it is."""
    if status in LIVE:
        return SubscriptionStatus.EXPIRED if end_date is None or end_date <= now else status
    return status


def response(subscription: Subscription, now: datetime | None = None) -> SubscriptionResponse:
    """The Web API record of a subscription."""
    values = subscription.model_dump()
    values["actual_status"] = actual_status(subscription.status, subscription.end_date, now or utcnow())
    return SubscriptionResponse.model_validate(values)


def summary(subscription: Subscription, now: datetime) -> SubscriptionSummary:
    """The subscription as the user record shows it."""
    return SubscriptionSummary.model_validate(_summary_values(subscription.model_dump(), now))


async def get(
    session: AsyncSession, subscription_id: int, *, for_update: bool = False
) -> Subscription | None:
    if not fits_int32(subscription_id):
        return None
    query = select(Subscription).where(col(Subscription.id) == subscription_id)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


async def list_subscriptions(
    session: AsyncSession,
    *,
    limit: int,
    offset: int,
    status: str | None = None,
    user_id: int | None = None,
    is_trial: bool | None = None,
) -> list[Subscription]:
    """A window of the subscriptions, newest first."""
    query = select(Subscription)
    if status is not None:
        query = query.where(col(Subscription.status) == status)
    if user_id is not None:
        if not fits_int32(user_id):
            return []
        query = query.where(col(Subscription.user_id) == user_id)
    if is_trial is not None:
        query = query.where(col(Subscription.is_trial) == is_trial)
    query = query.order_by(col(Subscription.created_at).desc(), col(Subscription.id).desc())
    return list((await session.exec(query.offset(offset).limit(limit))).all())


async def primary_of(session: AsyncSession, user_id: int, *, for_update: bool = False) -> Subscription | None:
    """The user's current subscription: an active one first, then a trial, then the one that
    ends last (whatever its status)."""
    rank = case(
        (col(Subscription.status) == SubscriptionStatus.ACTIVE, 0),
        (col(Subscription.status) == SubscriptionStatus.TRIAL, 1),
        else_=2,
    )
    query = (
        select(Subscription)
        .where(col(Subscription.user_id) == user_id)
        .order_by(rank, col(Subscription.end_date).desc(), col(Subscription.id).desc())
        .limit(1)
    )
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


@functools.cache
def _subscriptions_of_users(dialect: str, short: bool) -> DriverSelect:
    table: sa.Table = Subscription.__table__  # type: ignore[attr-defined]
    return DriverSelect(
        sa.select(table)
        .where(in_list(table.c.user_id, "ids", dialect, short=short))
        .order_by(table.c.created_at.desc(), table.c.id.desc())
    )


RECORD_COLUMN = "subscriptions__json"
_TABLE: sa.Table = Subscription.__table__  # type: ignore[attr-defined]
_SUMMARY_COLUMNS = tuple(name for name in SubscriptionSummary.model_fields if name in _TABLE.c)
_TIMES = tuple(name for name in _SUMMARY_COLUMNS if isinstance(_TABLE.c[name].type, UTCDateTime))


def record_columns(users: FromClause) -> list[ColumnElement[Any]]:
    """PostgreSQL (the users plugin's ``user_record_columns``): each user's subscriptions,
    newest first, their summary's columns as a JSON array in text (null for none), read with
    the user's record: ``(SELECT json_agg(json_build_object(...) ORDER BY created_at DESC, id
    DESC) FROM subscriptions WHERE user_id = users.id)::text``."""
    pairs: list[ColumnElement[Any]] = []
    for name in _SUMMARY_COLUMNS:
        pairs += [sa.literal_column(f"'{name}'"), _TABLE.c[name]]
    summary = func.json_build_object(*pairs)
    newest_first = aggregate_order_by(summary, _TABLE.c.created_at.desc(), _TABLE.c.id.desc())
    rows = sa.select(func.json_agg(newest_first)).where(_TABLE.c.user_id == users.c.id).scalar_subquery()
    return [sa.cast(rows, Text).label(RECORD_COLUMN)]


def _from_json(values: dict[str, Any]) -> dict[str, Any]:
    """A subscription of :func:`record_columns` with its times as UTC date-times."""
    for name in _TIMES:
        values[name] = datetime.fromisoformat(values[name]).astimezone(UTC)
    return values


def _summary_values(values: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """A subscription row as the user record's summary fields (validated with the record)."""
    return {**values, "actual_status": actual_status(values["status"], values["end_date"], now)}


async def record_extras(
    session: AsyncSession, user_ids: Sequence[int], rows: Sequence[Mapping[str, Any]] = ()
) -> dict[int, dict[str, Any]]:
    """The user record's ``subscription`` (the primary one) and ``subscriptions`` (newest
    first) for every user of a page: from the records' ``rows`` where they carry
    :func:`record_columns`, else in one query (plain rows, validated with the records).

    Primary: the newest whose stored status is ``active`` or ``trial``; else the newest that
    is not an unpaid pending trial; else none.
    """
    extras: dict[int, dict[str, Any]] = {
        user_id: {"subscription": None, "subscriptions": []} for user_id in user_ids
    }
    now = utcnow()
    grouped: dict[int, list[dict[str, Any]]] = {}
    if rows and RECORD_COLUMN in rows[0]:
        for row in rows:
            if row[RECORD_COLUMN] is not None:
                found = json.loads(row[RECORD_COLUMN])
                grouped[row["id"]] = [_summary_values(_from_json(values), now) for values in found]
    else:
        ids = [user_id for user_id in user_ids if fits_int32(user_id)]
        if ids:
            query = _subscriptions_of_users(session.get_bind().dialect.name, is_short(ids))
            for row in await query.mappings(session, {"ids": ids}):
                grouped.setdefault(row["user_id"], []).append(_summary_values(row, now))
    for user_id, subscriptions in grouped.items():
        primary = next((s for s in subscriptions if s["status"] in LIVE), None)
        if primary is None:
            primary = next(
                (
                    s
                    for s in subscriptions
                    if not (s["is_trial"] and s["status"] == SubscriptionStatus.PENDING)
                ),
                None,
            )
        extras[user_id] = {"subscription": primary, "subscriptions": subscriptions}
    return extras


# --- changing ------------------------------------------------------------------------------------


def new_short_id() -> str:
    """A random short id (lowercase letters and digits); the column is unique."""
    return "".join(secrets.choice(_SHORT_ID_ALPHABET) for _ in range(SHORT_ID_LENGTH))


def publish_change(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    change: ChangeKind,
    panel_actions: Sequence[PanelAction] = (),
) -> None:
    """Mark the subscription for the panel and publish the change in this transaction
    (``panel_actions``: resets the panel integration makes after pushing it)."""
    assert subscription.id is not None
    subscription.panel_sync_state = PANEL_SYNC_PENDING
    events.publish(
        session,
        EVENT_CHANGED,
        from_attributes(
            SubscriptionChanged,
            subscription,
            subscription_id=subscription.id,
            change=change,
            panel_actions=list(dict.fromkeys(panel_actions)),
        ),
    )


async def record_change(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    change: ChangeKind,
    now: datetime | None = None,
    panel_actions: Sequence[PanelAction] = (),
) -> Subscription:
    """A change made: the subscription stamped (at ``now``), the change published, the
    session flushed."""
    subscription.updated_at = now or utcnow()
    publish_change(session, events, subscription, change, panel_actions)
    await session.flush()
    return subscription


def _squads(order: Order) -> list[str] | None:
    """The squads the order names (``connected_squads`` and ``squad_uuid``), or ``None``."""
    if order.connected_squads is None and not order.squad_uuid:
        return None
    squads = list(dict.fromkeys(order.connected_squads or ()))
    if order.squad_uuid and order.squad_uuid not in squads:
        squads.append(order.squad_uuid)
    return squads


def _device_limit(order: Order, settings: SubscriptionSettings) -> int:
    if order.device_limit is not None:
        return order.device_limit
    if not settings.DEVICES_SELECTION_ENABLED and settings.DEVICES_SELECTION_DISABLED_AMOUNT > 0:
        return settings.DEVICES_SELECTION_DISABLED_AMOUNT
    return settings.TRIAL_DEVICE_LIMIT if order.is_trial else settings.DEFAULT_DEVICE_LIMIT


async def create_or_replace(
    session: AsyncSession,
    events: EventBus,
    settings: SubscriptionSettings,
    user: User,
    order: Order,
) -> Subscription:
    """Create the user's subscription, or overwrite the current one (or the one of the user's
    ``order.subscription_id`` names: else :class:`SubscriptionNotFound`) with ``replace_existing``.

    The caller holds the user's row lock (so two orders for one user do not both create).
    Trial: days, traffic (0 too) and devices fall back to the trial settings. Paid: days are
    required; traffic (only when absent) and devices fall back to the defaults; the user's
    other live trials are disabled and the user is marked as having had a paid subscription.
    Replacing resets used and purchased traffic and drops the traffic purchases and links.
    """
    assert user.id is not None
    if order.is_trial:
        days = order.days or settings.TRIAL_DURATION_DAYS
        traffic = order.traffic_limit_gb or settings.TRIAL_TRAFFIC_LIMIT_GB
    else:
        if order.days is None:
            raise RuleViolation(PAID_NEEDS_DAYS)
        days = order.days
        traffic = (
            settings.DEFAULT_TRAFFIC_LIMIT_GB if order.traffic_limit_gb is None else order.traffic_limit_gb
        )
    if order.subscription_id is None:
        existing = await primary_of(session, user.id, for_update=True)
    else:
        existing = await get(session, order.subscription_id, for_update=True)
        if existing is None or existing.user_id != user.id:
            raise SubscriptionNotFound(SUBSCRIPTION_NOT_FOUND)
    if existing is not None and not order.replace_existing:
        raise RuleViolation(ALREADY_HAS)

    now = utcnow()
    squads = _squads(order)
    if existing is None:
        defaults = settings.TRIAL_SQUAD_UUIDS if order.is_trial else settings.DEFAULT_SQUAD_UUIDS
        subscription = Subscription(
            user_id=user.id,
            status=SubscriptionStatus.ACTIVE,
            is_trial=order.is_trial,
            start_date=now,
            end_date=now + timedelta(days=days),
            traffic_limit_gb=traffic,
            device_limit=_device_limit(order, settings),
            connected_squads=list(defaults) if squads is None else squads,
            autopay_enabled=False if order.is_trial else settings.DEFAULT_AUTOPAY_ENABLED,
            autopay_days_before=settings.DEFAULT_AUTOPAY_DAYS_BEFORE,
            short_id=new_short_id(),
            created_at=now,
            updated_at=now,
        )
        session.add(subscription)
        change: ChangeKind = "created"
    else:
        subscription = existing
        subscription.status = SubscriptionStatus.ACTIVE
        subscription.is_trial = order.is_trial
        if order.is_trial:
            subscription.autopay_enabled = False
        subscription.start_date = now
        subscription.end_date = now + timedelta(days=days)
        subscription.traffic_limit_gb = traffic
        subscription.traffic_used_gb = 0.0
        subscription.purchased_traffic_gb = 0
        subscription.device_limit = _device_limit(order, settings)
        if squads is not None:
            subscription.connected_squads = squads
        subscription.subscription_url = None
        subscription.subscription_crypto_link = None
        subscription.updated_at = now
        await session.exec(
            delete(TrafficPurchase).where(col(TrafficPurchase.subscription_id) == subscription.id)
        )
        change = "replaced"
    await session.flush()
    publish_change(session, events, subscription, change)
    if not order.is_trial:
        await disable_other_trials(session, events, subscription, now)
        record_paid_subscription(session, user, now)
    await session.flush()
    return subscription


async def disable_other_trials(
    session: AsyncSession, events: EventBus, paid: Subscription, now: datetime
) -> None:
    query = (
        select(Subscription)
        .where(
            col(Subscription.user_id) == paid.user_id,
            col(Subscription.id) != paid.id,
            col(Subscription.is_trial) == true(),
            col(Subscription.status).in_(LIVE),
        )
        .with_for_update()
    )
    for trial in (await session.exec(query)).all():
        trial.status = SubscriptionStatus.DISABLED
        trial.updated_at = now
        publish_change(session, events, trial, "disabled")


async def extend(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    days: int,
    *,
    now: datetime | None = None,
    panel_actions: Sequence[PanelAction] = (),
) -> Subscription:
    """Add days: from the end when it is still ahead of ``now``, else from ``now``. An
    expired, disabled, limited or trial status becomes active."""
    now = now or utcnow()
    start = subscription.end_date if subscription.end_date > now else now
    try:
        subscription.end_date = start + timedelta(days=days)
    except OverflowError:
        raise RuleViolation(END_OUT_OF_RANGE) from None
    if subscription.status in REACTIVATED_BY_EXTEND:
        subscription.status = SubscriptionStatus.ACTIVE
    return await record_change(session, events, subscription, "extended", now, panel_actions)


def _reactivate_if_current(subscription: Subscription, now: datetime) -> None:
    if subscription.status in REACTIVATED_BY_ADDON and subscription.end_date > now:
        subscription.status = SubscriptionStatus.ACTIVE


async def add_traffic(
    session: AsyncSession,
    events: EventBus,
    settings: SubscriptionSettings,
    subscription: Subscription,
    gb: int,
    *,
    now: datetime | None = None,
) -> Subscription:
    """Add traffic to a limited subscription and record the purchase (it counts for
    ``TRAFFIC_PURCHASE_DAYS`` from ``now``). An unlimited subscription (0) is left as it is."""
    if subscription.traffic_limit_gb == 0:
        return subscription
    assert subscription.id is not None
    if subscription.traffic_limit_gb + gb not in INT32:
        raise RuleViolation(TRAFFIC_OUT_OF_RANGE)
    now = now or utcnow()
    subscription.traffic_limit_gb += gb
    subscription.purchased_traffic_gb += gb
    _reactivate_if_current(subscription, now)
    session.add(
        TrafficPurchase(
            subscription_id=subscription.id,
            traffic_gb=gb,
            expires_at=now + timedelta(days=settings.TRAFFIC_PURCHASE_DAYS),
            created_at=now,
        )
    )
    return await record_change(session, events, subscription, "traffic", now)


async def add_devices(
    session: AsyncSession,
    events: EventBus,
    settings: SubscriptionSettings,
    subscription: Subscription,
    devices: int,
    *,
    now: datetime | None = None,
) -> Subscription:
    """Raise the device limit, never above ``MAX_DEVICES_LIMIT`` (when set)."""
    now = now or utcnow()
    limit = subscription.device_limit + devices
    if limit not in INT32:
        raise RuleViolation(DEVICES_OUT_OF_RANGE)
    if settings.MAX_DEVICES_LIMIT > 0:
        limit = min(limit, max(settings.MAX_DEVICES_LIMIT, subscription.device_limit))
    before = (subscription.device_limit, subscription.status)
    subscription.device_limit = limit
    _reactivate_if_current(subscription, now)
    if (subscription.device_limit, subscription.status) != before:
        await record_change(session, events, subscription, "devices", now)
    return subscription


async def add_squad(
    session: AsyncSession, events: EventBus, subscription: Subscription, squad_uuid: str
) -> Subscription:
    """Connect a squad (nothing to do when it is connected already)."""
    squad = squad_uuid.strip()
    if not squad:
        raise RuleViolation(SQUAD_REQUIRED)
    if squad not in subscription.connected_squads:
        subscription.connected_squads = [*subscription.connected_squads, squad]
        await record_change(session, events, subscription, "squads")
    return subscription


async def remove_squad(
    session: AsyncSession, events: EventBus, subscription: Subscription, squad_uuid: str
) -> Subscription:
    """Disconnect a squad (nothing to do when it is not connected)."""
    if squad_uuid in subscription.connected_squads:
        subscription.connected_squads = [s for s in subscription.connected_squads if s != squad_uuid]
        await record_change(session, events, subscription, "squads")
    return subscription


async def disable(session: AsyncSession, events: EventBus, subscription: Subscription) -> Subscription:
    """Soft delete: the row stays, with status ``disabled``."""
    if subscription.status != SubscriptionStatus.DISABLED:
        subscription.status = SubscriptionStatus.DISABLED
        await record_change(session, events, subscription, "disabled")
    return subscription

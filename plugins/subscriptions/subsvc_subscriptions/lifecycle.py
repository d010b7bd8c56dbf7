"""What selling needs of subscriptions: resolving the user's subscription, creating one on a
tariff's terms, changing its tariff, the daily state, autopay, the traffic used and bulk
expiry; no HTTP in here.

Times come from the caller (``now``: a job's clock, a test's). Changes publish
``subscription.changed`` like every other (the panel integration's queue), with the resets
the panel should make after pushing them (``panel_actions``); the daily state, autopay, the
traffic used and expiry publish nothing (the panel has nothing new to hear, or follows the
end date itself). A user holds a tariff once (``uq_subscriptions_user_tariff_live``): a
change that would hold it twice raises :class:`DuplicateTariff`, the session still usable.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, delete, func, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import User, record_paid_subscription

from subsvc.api import Query, fits_int32
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc_subscriptions.models import HELD_STATUSES, Subscription, TrafficPurchase
from subsvc_subscriptions.schemas import PanelAction, SubscriptionStatus
from subsvc_subscriptions.service import (
    END_OUT_OF_RANGE,
    LIVE,
    RuleViolation,
    disable_other_trials,
    new_short_id,
    primary_of,
    publish_change,
    record_change,
)
from subsvc_subscriptions.settings import SubscriptionSettings

DUPLICATE_TARIFF = "You already have an active subscription for this tariff"
_INDEX = "uq_subscriptions_user_tariff_live"
SubscriptionIdQuery = Annotated[int | None, Query(description="Subscription ID for multi-tariff")]
"""The 4.1.0 query ``subscription_id`` of a cabinet operation on a subscription: one of the
user's own (:func:`resolve`; absent: the current one)."""


class DuplicateTariff(RuleViolation):
    """The user holds a subscription of this tariff already (callers answer 409)."""

    def __init__(self, message: str = DUPLICATE_TARIFF) -> None:
        super().__init__(message)


@dataclass(frozen=True)
class Terms:
    """What a subscription is sold with: its tariff (``None``: classic), length, limits and
    squads; a daily one is charged every 24 h; ``autopay_period_days`` is what autopay buys."""

    tariff_id: int | None
    days: int
    traffic_limit_gb: int
    device_limit: int
    squads: Sequence[str]
    is_daily: bool = False
    autopay_period_days: int | None = None


@dataclass(frozen=True)
class ExpiredRow:
    """A subscription :func:`mark_expired` has just marked ``expired``."""

    subscription_id: int
    user_id: int
    end_date: datetime
    is_trial: bool
    tariff_id: int | None


# --- reading -------------------------------------------------------------------------------------


async def resolve(
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None,
    *,
    multi: bool,
    for_update: bool = False,
    now: datetime | None = None,
) -> Subscription | None:
    """The subscription a cabinet request means (``None``: the user has none such).

    An id names one of the user's own (any mode). Without one: in multi-tariff mode the
    active one (stored active or trial, end ahead) that is not daily before daily ones, then
    with the most time left; in single mode the user's primary one (:func:`primary_of`).
    """
    if subscription_id is not None:
        if not fits_int32(subscription_id):
            return None
        query = select(Subscription).where(
            col(Subscription.id) == subscription_id, col(Subscription.user_id) == user_id
        )
    elif multi:
        query = (
            select(Subscription)
            .where(
                col(Subscription.user_id) == user_id,
                col(Subscription.status).in_(LIVE),
                col(Subscription.end_date) > (now or utcnow()),
            )
            .order_by(
                col(Subscription.last_daily_charge_at).is_not(None),
                col(Subscription.end_date).desc(),
                col(Subscription.id).desc(),
            )
            .limit(1)
        )
    else:
        return await primary_of(session, user_id, for_update=for_update)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


async def of_user(
    session: AsyncSession,
    user_id: int,
    *,
    tariff_id: int | None = None,
    live_only: bool = False,
    for_update: bool = False,
) -> list[Subscription]:
    """The user's subscriptions, newest first: of one tariff, and only those holding it
    (stored active, trial or limited), when asked."""
    if not fits_int32(user_id):
        return []
    query = select(Subscription).where(col(Subscription.user_id) == user_id)
    if tariff_id is not None:
        query = query.where(col(Subscription.tariff_id) == tariff_id)
    if live_only:
        query = query.where(col(Subscription.status).in_(HELD_STATUSES))
    query = query.order_by(col(Subscription.created_at).desc(), col(Subscription.id).desc())
    if for_update:
        query = query.with_for_update()
    return list((await session.exec(query)).all())


# --- creating ------------------------------------------------------------------------------------


def _end(now: datetime, days: int, seconds: int = 0) -> datetime:
    try:
        return now + timedelta(days=days, seconds=seconds)
    except OverflowError:
        raise RuleViolation(END_OUT_OF_RANGE) from None


def _squads(squads: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(squad for squad in squads if squad))


def _new(
    user: User, terms: Terms, settings: SubscriptionSettings, now: datetime, *, status: str, is_trial: bool
) -> Subscription:
    assert user.id is not None
    paid = status == SubscriptionStatus.ACTIVE and not is_trial
    return Subscription(
        user_id=user.id,
        status=status,
        is_trial=is_trial,
        start_date=now,
        end_date=_end(now, terms.days) if status != SubscriptionStatus.PENDING else now,
        traffic_limit_gb=terms.traffic_limit_gb,
        device_limit=terms.device_limit,
        connected_squads=_squads(terms.squads),
        autopay_enabled=paid and not terms.is_daily and settings.DEFAULT_AUTOPAY_ENABLED,
        autopay_days_before=settings.DEFAULT_AUTOPAY_DAYS_BEFORE,
        autopay_period_days=terms.autopay_period_days,
        last_daily_charge_at=now if terms.is_daily else None,
        tariff_id=terms.tariff_id,
        short_id=new_short_id(),
        created_at=now,
        updated_at=now,
    )


async def _holding(session: AsyncSession, change: Callable[[], Awaitable[None]]) -> None:
    """Make ``change`` and flush it in a savepoint: a second held subscription of a tariff
    raises :class:`DuplicateTariff` with the change undone and the session still usable."""
    await session.flush()  # the caller's pending changes stay out of the savepoint
    try:
        async with session.begin_nested():
            await change()
            await session.flush()
    except IntegrityError as exc:
        if _INDEX in str(exc.orig) or "subscriptions.tariff_id" in str(exc.orig):
            raise DuplicateTariff() from None
        raise


async def _created(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    panel_actions: Sequence[PanelAction] = (),
) -> Subscription:
    async def add() -> None:
        session.add(subscription)

    await _holding(session, add)
    publish_change(session, events, subscription, "created", panel_actions)
    return subscription


async def create_paid(
    session: AsyncSession,
    events: EventBus,
    settings: SubscriptionSettings,
    user: User,
    terms: Terms,
    *,
    now: datetime,
    panel_actions: Sequence[PanelAction] = (),
) -> Subscription:
    """A paid subscription on ``terms`` from ``now``; the user's live trials are disabled and
    the user is marked as having had a paid subscription. The caller holds the user's lock."""
    subscription = _new(user, terms, settings, now, status=SubscriptionStatus.ACTIVE, is_trial=False)
    await _created(session, events, subscription, panel_actions)
    await disable_other_trials(session, events, subscription, now)
    record_paid_subscription(session, user, now)
    await session.flush()
    return subscription


async def create_pending(
    session: AsyncSession,
    events: EventBus,
    settings: SubscriptionSettings,
    user: User,
    terms: Terms,
    *,
    now: datetime,
) -> Subscription:
    """A ``pending`` placeholder on ``terms`` (nothing paid yet: it ends ``now``), for a
    purchase a payment provider completes later; :func:`apply_tariff` makes it active."""
    subscription = _new(user, terms, settings, now, status=SubscriptionStatus.PENDING, is_trial=False)
    return await _created(session, events, subscription)


async def create_trial(
    session: AsyncSession,
    events: EventBus,
    settings: SubscriptionSettings,
    user: User,
    terms: Terms,
    *,
    now: datetime,
) -> Subscription:
    """A trial on ``terms`` (the caller chose them: the trial tariff's or the settings'),
    active from ``now``, without autopay."""
    subscription = _new(user, terms, settings, now, status=SubscriptionStatus.ACTIVE, is_trial=True)
    return await _created(session, events, subscription)


# --- changing the tariff -------------------------------------------------------------------------


async def _live_purchased_gb(session: AsyncSession, subscription: Subscription, now: datetime) -> int:
    query = select(func.coalesce(func.sum(TrafficPurchase.traffic_gb), 0)).where(
        col(TrafficPurchase.subscription_id) == subscription.id, col(TrafficPurchase.expires_at) > now
    )
    return int((await session.exec(query)).one())


async def _take_terms(
    session: AsyncSession,
    subscription: Subscription,
    terms: Terms,
    now: datetime,
    *,
    end: datetime,
    keep_traffic: bool,
    bought: bool,
) -> None:
    """Put the tariff's terms and ``end`` on the subscription (``bought``: a new term from
    now, active, no longer a trial). Purchased traffic that still counts stays on top of a
    limited base when ``keep_traffic``; else the purchases go."""
    limited = terms.traffic_limit_gb > 0
    kept = await _live_purchased_gb(session, subscription, now) if keep_traffic and limited else 0

    async def take() -> None:
        if not kept:
            await session.exec(
                delete(TrafficPurchase).where(col(TrafficPurchase.subscription_id) == subscription.id)
            )
        subscription.tariff_id = terms.tariff_id
        subscription.traffic_limit_gb = terms.traffic_limit_gb + kept if limited else 0
        subscription.purchased_traffic_gb = kept
        subscription.device_limit = terms.device_limit
        subscription.connected_squads = _squads(terms.squads)
        subscription.autopay_period_days = terms.autopay_period_days
        subscription.last_daily_charge_at = now if terms.is_daily else None
        subscription.is_daily_paused = False
        if terms.is_daily:
            subscription.autopay_enabled = False
        subscription.end_date = end
        if bought:
            subscription.status = SubscriptionStatus.ACTIVE
            subscription.is_trial = False
            subscription.start_date = now
        subscription.updated_at = now

    await _holding(session, take)


async def apply_tariff(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    terms: Terms,
    *,
    now: datetime,
    carry_seconds: int,
    panel_actions: Sequence[PanelAction] = (),
) -> Subscription:
    """A purchase of another tariff on this subscription: a new term from ``now`` of
    ``terms.days`` plus ``carry_seconds`` (what the caller carries of the old term); active,
    no longer a trial; the user's other live trials are disabled."""
    end = _end(now, terms.days, max(0, carry_seconds))
    await _take_terms(session, subscription, terms, now, end=end, keep_traffic=True, bought=True)
    publish_change(session, events, subscription, "tariff", panel_actions)
    await disable_other_trials(session, events, subscription, now)
    await session.flush()
    return subscription


async def switch_tariff(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    terms: Terms,
    *,
    end: datetime,
    now: datetime,
    keep_purchased_traffic: bool,
) -> Subscription:
    """A tariff switch: the new tariff's terms (``terms.device_limit`` as the caller carried
    the extra devices) and the end the switch gives (``end``: unchanged, or a new period)."""
    await _take_terms(
        session, subscription, terms, now, end=end, keep_traffic=keep_purchased_traffic, bought=False
    )
    publish_change(session, events, subscription, "tariff")
    await session.flush()
    return subscription


async def set_squads(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    squads: Sequence[str],
    *,
    now: datetime | None = None,
) -> Subscription:
    """Connect exactly these squads (nothing to publish when they are the connected ones)."""
    wanted = _squads(squads)
    if wanted != list(subscription.connected_squads):
        subscription.connected_squads = wanted
        await record_change(session, events, subscription, "squads", now)
    return subscription


# --- no event ------------------------------------------------------------------------------------


async def set_daily_state(
    session: AsyncSession,
    subscription: Subscription,
    *,
    paused: bool | None = None,
    last_charge_at: datetime | None = None,
) -> None:
    """Pause or resume the daily charge, or record one (``None`` leaves a field)."""
    if paused is not None:
        subscription.is_daily_paused = paused
    if last_charge_at is not None:
        subscription.last_daily_charge_at = last_charge_at
    subscription.updated_at = last_charge_at or utcnow()
    await session.flush()


async def set_traffic_used(
    session: AsyncSession, subscription_id: int, used_gb: float, *, now: datetime
) -> None:
    """Record the traffic used the panel reported."""
    await session.exec(
        sa.update(Subscription)
        .where(col(Subscription.id) == subscription_id)
        .values(traffic_used_gb=used_gb, updated_at=now)
        .execution_options(synchronize_session=False)
    )


async def mark_expired(session: AsyncSession, *, now: datetime, limit: int) -> list[ExpiredRow]:
    """Mark up to ``limit`` subscriptions stored active or trial whose end has come
    (soonest first) ``expired``; returns them. A conditional UPDATE: run twice, or by two
    workers at once, each subscription is returned once."""
    table: sa.Table = Subscription.__table__  # type: ignore[attr-defined]
    due = (table.c.status.in_(list(LIVE)), table.c.end_date <= now)
    batch = sa.select(table.c.id).where(*due).order_by(table.c.end_date, table.c.id).limit(limit)
    statement = (
        sa.update(table)
        .where(table.c.id.in_(batch.scalar_subquery()), *due)
        .values(status=SubscriptionStatus.EXPIRED.value, updated_at=now)
        .returning(table.c.id, table.c.user_id, table.c.end_date, table.c.is_trial, table.c.tariff_id)
    )
    rows = (await session.exec(statement)).all()
    return [ExpiredRow(*row) for row in sorted(rows, key=lambda row: (row[2], row[0]))]

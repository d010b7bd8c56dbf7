"""The charging jobs, each subscription in a transaction of its own, locked and checked again
before it is charged (two workers, or a rerun, charge it once):

- autopay renews a subscription from the balance ``autopay_days_before`` days before its end,
  once per term: the term is claimed by a row of ``renewal_autopay_attempts`` (primary key
  ``(subscription_id, term_end)``) in the transaction that charges, so a failure is also
  reported once per term (``subscription.autopay_failed``);
- a daily tariff is charged a day every 24 h from its last charge (not while paused); when
  the balance is short the subscription is disabled (``subscription.autopay_failed``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

import subsvc_pricing.api as pricing
import subsvc_sales.api as sales
import subsvc_subscriptions.api as subscriptions
from sqlalchemy import ColumnExpressionArgument
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, false, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription, SubscriptionStatus

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_renewals.daily import daily_description
from subsvc_renewals.errors import RenewalError
from subsvc_renewals.models import FAILED, RENEWED, AutopayAttempt
from subsvc_renewals.options import renewal_quote
from subsvc_renewals.renewing import charge_and_extend, publish_renewed
from subsvc_renewals.schemas import AutopayFailed
from subsvc_renewals.subject import buyer, tariff_of

AUTOPAY_JOB = "renewals.autopay"
DAILY_JOB = "renewals.daily_charge"
AUTOPAY_FAILED_EVENT = "subscription.autopay_failed"
BATCH = 200
DAY = timedelta(days=1)
AUTOPAY_HORIZON_DAYS = 30
log = logging.getLogger("subsvc.renewals")


def _failed(
    ids: tuple[int, int], reason: str, *, daily: bool, required: int, balance: int, now: datetime
) -> AutopayFailed:
    """``subscription.autopay_failed`` of the subscription and user ``ids``."""
    return AutopayFailed(
        subscription_id=ids[0],
        user_id=ids[1],
        reason="insufficient_funds" if reason == "insufficient_funds" else "not_renewable",
        daily=daily,
        required_kopeks=required,
        balance_kopeks=balance,
        occurred_at=now,
    )


async def _each_candidate(
    app: Starlette,
    now: datetime,
    candidates: Callable[[datetime], list[ColumnExpressionArgument[bool]]],
    one: Callable[[Starlette, int, datetime], Awaitable[bool]],
) -> int:
    """Call ``one`` for every subscription matching ``candidates(now)``, in pages of
    ``BATCH`` by id (each call checks again and commits on its own); answers how many it did."""
    done, after_id = 0, 0
    while True:
        async with services(app).db.session(read_only=True) as session:
            query = (
                select(col(Subscription.id))
                .where(*candidates(now), col(Subscription.id) > after_id)
                .order_by(col(Subscription.id))
                .limit(BATCH)
            )
            due = [i for i in (await session.exec(query)).all() if i is not None]
        for subscription_id in due:
            after_id = subscription_id
            done += await one(app, subscription_id, now)
        if len(due) < BATCH:
            return done


# --- autopay -------------------------------------------------------------------------------------


def _autopay_due(subscription: Subscription, now: datetime) -> bool:
    days_before = subscription.autopay_days_before
    days_before = 3 if days_before is None else days_before
    return (
        subscription.autopay_enabled
        and subscription.status == SubscriptionStatus.ACTIVE
        and not subscription.is_trial
        and subscription.last_daily_charge_at is None
        and subscription.end_date - timedelta(days=days_before) <= now
    )


def _autopay_candidates(now: datetime) -> list[ColumnExpressionArgument[bool]]:
    return [
        col(Subscription.autopay_enabled),
        col(Subscription.status) == SubscriptionStatus.ACTIVE,
        col(Subscription.end_date) <= now + timedelta(days=AUTOPAY_HORIZON_DAYS),
    ]


async def _autopay_period(app: Starlette, session: AsyncSession, subscription: Subscription) -> int:
    """What autopay buys: the subscription's autopay period, else its tariff's shortest
    period, else the first classic renewal period (30 days without one)."""
    if subscription.autopay_period_days:
        return subscription.autopay_period_days
    tariff = await tariff_of(app, session, subscription.tariff_id)
    shortest = tariff.shortest() if tariff is not None else None
    if shortest is not None:
        return shortest[0]
    periods = pricing.classic_tables(app).renewal_periods
    return periods[0] if periods else 30


async def _claim(session: AsyncSession, subscription: Subscription, now: datetime) -> AutopayAttempt | None:
    """Claim the subscription's current term for autopay (``None``: claimed before)."""
    assert subscription.id is not None
    attempt = AutopayAttempt(
        subscription_id=subscription.id, term_end=subscription.end_date, outcome=FAILED, created_at=now
    )
    if await session.get(AutopayAttempt, (subscription.id, subscription.end_date)) is not None:
        return None
    try:
        async with session.begin_nested():
            session.add(attempt)
    except IntegrityError:
        return None
    return attempt


async def _autopay_one(app: Starlette, subscription_id: int, now: datetime) -> bool:
    """Renew one subscription if it is still due and its term unclaimed; true when renewed."""
    async with services(app).db.session() as session:
        subscription = await subscriptions.get(session, subscription_id, for_update=True)
        if subscription is None or not _autopay_due(subscription, now):
            return False
        attempt = await _claim(session, subscription, now)
        if attempt is None:
            return False
        ids = (subscription_id, subscription.user_id)  # read before a savepoint may expire them
        b = await buyer(app, session, subscription.user_id)
        days = await _autopay_period(app, session, subscription)
        failure: AutopayFailed | None = None
        try:
            quote = await renewal_quote(app, session, subscription, b, days, now)
            async with session.begin_nested():
                charged = await charge_and_extend(
                    app, session, subscription, quote, days, now=now, source="autopay"
                )
            attempt.outcome, attempt.amount_kopeks = RENEWED, charged.amount_kopeks
        except (RenewalError, sales.PriceChanged, subscriptions.RuleViolation):
            failure = _failed(
                ids, "not_renewable", daily=False, required=0, balance=b.balance_kopeks, now=now
            )
        except sales.InsufficientFunds as short:
            failure = _failed(
                ids,
                "insufficient_funds",
                daily=False,
                required=short.required_kopeks,
                balance=short.balance_kopeks,
                now=now,
            )
        if failure is not None:
            services(app).events.publish(session, AUTOPAY_FAILED_EVENT, failure)
            log.info("autopay of subscription %d failed: %s", subscription_id, failure.reason)
        await session.commit()
        return failure is None


async def autopay_due(app: Starlette, *, now: datetime | None = None) -> int:
    """Renew every subscription whose autopay is due at ``now`` (once per term); answers how
    many were renewed."""
    renewed = await _each_candidate(app, now or utcnow(), _autopay_candidates, _autopay_one)
    if renewed:
        log.info("autopay renewed %d subscriptions", renewed)
    return renewed


async def run_autopay(app: Starlette) -> None:
    """Renews from the balance the subscriptions with autopay `autopay_days_before` days before
    their end, once per term, every `AUTOPAY_INTERVAL_SECONDS`."""
    await autopay_due(app)


# --- daily tariffs -------------------------------------------------------------------------------


def _daily_due(subscription: Subscription, now: datetime) -> bool:
    last = subscription.last_daily_charge_at
    return (
        last is not None
        and last + DAY <= now
        and not subscription.is_daily_paused
        and subscription.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.EXPIRED)
    )


def _daily_candidates(now: datetime) -> list[ColumnExpressionArgument[bool]]:
    return [
        col(Subscription.last_daily_charge_at).is_not(None),
        col(Subscription.last_daily_charge_at) <= now - DAY,
        col(Subscription.is_daily_paused) == false(),
        col(Subscription.status).in_([SubscriptionStatus.ACTIVE, SubscriptionStatus.EXPIRED]),
    ]


async def _charge_day(app: Starlette, subscription_id: int, now: datetime) -> bool:
    """Charge one daily subscription's day if it is still due; true when charged."""
    async with services(app).db.session() as session:
        subscription = await subscriptions.get(session, subscription_id, for_update=True)
        if subscription is None or not _daily_due(subscription, now):
            return False
        tariff = await tariff_of(app, session, subscription.tariff_id)
        if tariff is None or not tariff.is_daily:
            return False
        b = await buyer(app, session, subscription.user_id)
        quote = pricing.daily_charge(tariff, b, personal=False)
        events = services(app).events
        try:
            charged = await sales.charge(
                app, session, subscription.user_id, quote, description=daily_description()
            )
        except sales.InsufficientFunds as short:
            await subscriptions.disable(session, events, subscription)
            failure = _failed(
                (subscription_id, subscription.user_id),
                "insufficient_funds",
                daily=True,
                required=short.required_kopeks,
                balance=short.balance_kopeks,
                now=now,
            )
            events.publish(session, AUTOPAY_FAILED_EVENT, failure)
            await session.commit()
            log.info("daily subscription %d disabled: balance short", subscription_id)
            return False
        await subscriptions.extend(session, events, subscription, 1, now=now)
        await subscriptions.set_daily_state(session, subscription, last_charge_at=now)
        publish_renewed(app, session, subscription, charged, source="daily", days=1, now=now)
        await session.commit()
        return True


async def charge_daily_due(app: Starlette, *, now: datetime | None = None) -> int:
    """Charge every daily subscription whose day is over at ``now`` (not paused); disable the
    ones the balance does not cover. Answers how many were charged."""
    charged = await _each_candidate(app, now or utcnow(), _daily_candidates, _charge_day)
    if charged:
        log.info("charged %d daily subscriptions", charged)
    return charged


async def run_daily_charges(app: Starlette) -> None:
    """Charges the daily tariffs whose day is over (not paused) every
    `DAILY_CHARGE_INTERVAL_SECONDS`; a balance that does not cover the day disables the
    subscription (`subscription.autopay_failed`)."""
    await charge_daily_due(app)

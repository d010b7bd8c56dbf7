"""The segments: each name is a condition on the ``users`` table, as the reference selects.

Every segment holds only users whose ``status`` is ``active``. A subscription is *live* when
its stored status is ``active`` or ``trial`` and its end is still ahead (the subscriptions
plugin's ``actual_status``). Conditions are built once, with bind parameters (``now``,
``until``, ``since``, ``tariff_id``) whose values :class:`Definition.params` computes from
the moment of the query, so the statements can be prepared once and reused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, Integer, bindparam, exists, false, true
from subsvc_subscriptions.api import LIVE, Subscription, SubscriptionStatus
from subsvc_users.api import User

from subsvc.api import INT32_MAX
from subsvc.db import UTCDateTime

USERS: sa.Table = User.__table__  # type: ignore[attr-defined]  # SQLModel does not declare it
SUBSCRIPTIONS: sa.Table = Subscription.__table__  # type: ignore[attr-defined]  # SQLModel does not declare it
NOW = bindparam("now", type_=UTCDateTime())
UNTIL = bindparam("until", type_=UTCDateTime())
SINCE = bindparam("since", type_=UTCDateTime())
TARIFF_ID = bindparam("tariff_id", type_=Integer())
LOW_BALANCE_KOPEKS = 10_000
TARIFF_PREFIX = "tariff_"
# what the reference accepts for these names
ALIASES = {"no_sub": "no", "all_users": "all", "active_subscribers": "active", "trial_users": "trial"}

Params = Callable[[datetime], dict[str, Any]]


def _at(now: datetime) -> dict[str, Any]:
    return {"now": now}


def _within(days: int) -> Params:
    return lambda now: {"now": now, "until": now + timedelta(days=days)}


def _days_ago(days: int) -> Params:
    return lambda now: {"since": now - timedelta(days=days)}


def _midnight(now: datetime) -> dict[str, Any]:
    return {"since": now.replace(hour=0, minute=0, second=0, microsecond=0)}


def _no_params(now: datetime) -> dict[str, Any]:
    return {}


@dataclass(frozen=True, eq=False)
class Definition:
    """A segment: ``condition`` on the ``users`` table and the values of its bind parameters
    at a moment (``params(now)``). Compared by identity: statements are cached per definition."""

    condition: ColumnElement[bool]
    params: Params = field(default=_at)
    description: str = ""


def has_subscription(*conditions: ColumnElement[bool]) -> ColumnElement[bool]:
    """The user has a subscription meeting every condition (a correlated EXISTS, served by the
    ``(user_id, created_at)`` index)."""
    return exists().where(SUBSCRIPTIONS.c.user_id == USERS.c.id, *conditions)


LIVE_SUBSCRIPTION = (
    SUBSCRIPTIONS.c.status.in_([str(status) for status in LIVE]),
    SUBSCRIPTIONS.c.end_date > NOW,
)
PAID = SUBSCRIPTIONS.c.is_trial == false()
TRIAL = SUBSCRIPTIONS.c.is_trial == true()
NO_TRAFFIC = sa.or_(SUBSCRIPTIONS.c.traffic_used_gb.is_(None), SUBSCRIPTIONS.c.traffic_used_gb <= 0)
HAS_LIVE = has_subscription(*LIVE_SUBSCRIPTION)
ENDED = has_subscription(
    sa.or_(
        SUBSCRIPTIONS.c.status.in_([SubscriptionStatus.EXPIRED, SubscriptionStatus.DISABLED]),
        SUBSCRIPTIONS.c.end_date <= NOW,
    )
)
EXPIRED = sa.and_(
    ~HAS_LIVE,
    sa.or_(ENDED, sa.and_(~has_subscription(), USERS.c.has_had_paid_subscription == true())),
)
EXPIRING = has_subscription(*LIVE_SUBSCRIPTION, SUBSCRIPTIONS.c.end_date <= UNTIL)
INACTIVE = USERS.c.last_activity < SINCE

BUILT_IN: dict[str, Definition] = {
    "all": Definition(true(), _no_params, "every active user"),
    "active": Definition(has_subscription(*LIVE_SUBSCRIPTION, PAID), description="a live paid subscription"),
    "trial": Definition(has_subscription(TRIAL), _no_params, "a trial subscription (of any status)"),
    "no": Definition(~HAS_LIVE, description="no live subscription"),
    "expiring": Definition(EXPIRING, _within(3), "a live subscription ending within 3 days"),
    "expiring_subscribers": Definition(EXPIRING, _within(7), "a live subscription ending within 7 days"),
    "expired": Definition(
        EXPIRED, description="no live subscription, and an ended one (or none left after a paid one)"
    ),
    "expired_subscribers": Definition(EXPIRED, description="the same as expired"),
    "zero": Definition(has_subscription(*LIVE_SUBSCRIPTION, NO_TRAFFIC), description="live, no traffic used"),
    "active_zero": Definition(
        has_subscription(*LIVE_SUBSCRIPTION, PAID, NO_TRAFFIC), description="live paid, no traffic used"
    ),
    "trial_zero": Definition(
        has_subscription(*LIVE_SUBSCRIPTION, TRIAL, NO_TRAFFIC), description="live trial, no traffic used"
    ),
    "trial_ending": Definition(
        has_subscription(*LIVE_SUBSCRIPTION, TRIAL, SUBSCRIPTIONS.c.end_date <= UNTIL),
        _within(3),
        "a live trial ending within 3 days",
    ),
    "trial_expired": Definition(
        has_subscription(TRIAL, SUBSCRIPTIONS.c.end_date <= NOW), description="a trial that has ended"
    ),
    "canceled_subscribers": Definition(
        has_subscription(SUBSCRIPTIONS.c.status == SubscriptionStatus.DISABLED),
        _no_params,
        "a disabled subscription",
    ),
    # needs subscription events (autopay failures); a plugin recording them defines it
    "autopay_failed": Definition(false(), _no_params, "an autopay failure in the last 7 days"),
    "low_balance": Definition(
        sa.and_(USERS.c.balance_kopeks > 0, USERS.c.balance_kopeks < LOW_BALANCE_KOPEKS),
        _no_params,
        "0 < balance < 100 roubles",
    ),
    "inactive_30d": Definition(INACTIVE, _days_ago(30), "last activity more than 30 days ago"),
    "inactive_60d": Definition(INACTIVE, _days_ago(60), "last activity more than 60 days ago"),
    "inactive_90d": Definition(INACTIVE, _days_ago(90), "last activity more than 90 days ago"),
    "custom_today": Definition(USERS.c.created_at >= SINCE, _midnight, "registered today (UTC)"),
    "custom_week": Definition(USERS.c.created_at >= SINCE, _days_ago(7), "registered in the last 7 days"),
    "custom_month": Definition(USERS.c.created_at >= SINCE, _days_ago(30), "registered in the last 30 days"),
    "custom_active_today": Definition(USERS.c.last_activity >= SINCE, _midnight, "active today (UTC)"),
    "custom_inactive_week": Definition(INACTIVE, _days_ago(7), "last activity more than 7 days ago"),
    "custom_inactive_month": Definition(INACTIVE, _days_ago(30), "last activity more than 30 days ago"),
    "custom_referrals": Definition(USERS.c.referred_by_id.is_not(None), _no_params, "came by a referral"),
    "custom_direct": Definition(USERS.c.referred_by_id.is_(None), _no_params, "came without a referral"),
}
TARIFF = Definition(
    has_subscription(*LIVE_SUBSCRIPTION, SUBSCRIPTIONS.c.tariff_id == TARIFF_ID),
    description="a live subscription on the tariff",
)


def normalize(target: str | None) -> str | None:
    """The name a ``target`` asks for: trimmed, lower case, the reference's aliases applied
    (``no_sub`` -> ``no``, ``all_users`` -> ``all``, ...); ``None`` for an empty target."""
    if target is None:
        return None
    name = target.strip().lower()
    return ALIASES.get(name, name) or None


def tariff_id_of(name: str) -> int | None:
    """The id in ``tariff_<id>`` (a positive 32-bit integer), else ``None``."""
    if not name.startswith(TARIFF_PREFIX):
        return None
    digits = name[len(TARIFF_PREFIX) :]
    if not digits.isdigit() or not 0 < int(digits) <= INT32_MAX:
        return None
    return int(digits)


def merged(extra: list[Mapping[str, Definition]]) -> dict[str, Definition]:
    """The built-in segments with the ones plugins define (a plugin's wins)."""
    catalogue = dict(BUILT_IN)
    for definitions in extra:
        catalogue.update({name.lower(): definition for name, definition in definitions.items()})
    return catalogue

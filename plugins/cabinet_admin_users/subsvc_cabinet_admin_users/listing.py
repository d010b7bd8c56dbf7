"""The users list of the cabinet admin (filters, orders, one page) and the items it shows.

The search and status filters are the users plugin's (the same conditions, indexes and
exact, briefly cached totals); this module adds the e-mail filter, the orders by spending
and traffic, and what an item shows beside the row (its subscription, promo group, spending
and restrictions), each loaded once per page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, false, func, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar
from starlette.applications import Starlette
from subsvc_billing.api import Transaction
from subsvc_promo_groups.api import PromoGroup
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription
from subsvc_users import api as users
from subsvc_users.api import User, count_cache

from subsvc.api import INT64_MAX, from_attributes
from subsvc.db import utcnow
from subsvc_cabinet_admin_users.lookup import all_summaries, user_answer
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_cabinet_admin_users.names import tariff_names
from subsvc_cabinet_admin_users.schemas import SortBy, SubscriptionListItem, UserListItem

SUBSCRIPTION_PAYMENT = "subscription_payment"
_CACHE_PREFIX = "cabinet_admin_users"


def _subscription_status_is(status: str, now: datetime) -> ColumnElement[bool]:
    """A subscription whose status is ``status`` now (the subscriptions plugin's actual
    status: a live one whose end has passed is ``expired``)."""
    stored, end = col(Subscription.status), col(Subscription.end_date)
    if status in subscriptions.LIVE:
        return and_(stored == status, end > now)
    if status == "expired":
        return or_(stored == status, and_(stored.in_(subscriptions.LIVE), end <= now))
    return stored == status


@dataclass(frozen=True)
class ListFilter:
    """The list's filters; ``attributed`` (the statements answering a campaign or partner
    filter, not part of the cache key: their ids are) is empty when no plugin knows them."""

    status: str | None = None
    search: str | None = None
    email: str | None = None
    referred_by_id: int | None = None
    subscription_status: str | None = None
    tariff_ids: tuple[int, ...] = ()
    promo_group_id: int | None = None
    campaign_id: int | None = None
    partner_id: int | None = None
    attributed: tuple[Select[tuple[int]], ...] = field(default=(), compare=False, hash=False)

    @property
    def reads_subscriptions(self) -> bool:
        """Whether the filter depends on subscriptions (and on the time: a status ends)."""
        return bool(self.subscription_status or self.tariff_ids)

    def conditions(self) -> list[ColumnElement[bool]]:
        found = users.filters(status=self.status, search=self.search)
        if self.email:
            found.append(func.lower(col(User.email)).contains(self.email.lower(), autoescape=True))
        if self.referred_by_id is not None:
            found.append(col(User.referred_by_id) == self.referred_by_id)
        if self.promo_group_id is not None:
            found.append(col(User.promo_group_id) == self.promo_group_id)
        owned = [col(Subscription.user_id) == col(User.id)]
        if self.subscription_status:
            owned.append(_subscription_status_is(self.subscription_status, utcnow()))
        if self.tariff_ids:
            owned.append(col(Subscription.tariff_id).in_(self.tariff_ids))
        if len(owned) > 1:
            found.append(select(Subscription.id).where(*owned).exists())
        if self.campaign_id is not None or self.partner_id is not None:
            if not self.attributed:
                found.append(false())
            found.extend(col(User.id).in_(statement) for statement in self.attributed)
        return found


def _spending() -> Any:
    """Per user: the completed subscription payments, summed (positive) and counted."""
    return (
        select(
            col(Transaction.user_id).label("user_id"),
            func.sum(func.abs(col(Transaction.amount_kopeks))).label("total_spent"),
            func.count().label("purchase_count"),
        )
        .where(col(Transaction.type) == SUBSCRIPTION_PAYMENT, col(Transaction.is_completed))
        .group_by(col(Transaction.user_id))
        .subquery("spending")
    )


def _page_query(filters: ListFilter, sort_by: SortBy) -> SelectOfScalar[User]:
    """The filter's users in the asked order; ties (and the default) newest first."""
    query = select(User).where(*filters.conditions())
    newest = (col(User.created_at).desc(), col(User.id).desc())
    if sort_by is SortBy.BALANCE:
        return query.order_by(col(User.balance_kopeks).desc(), *newest)
    if sort_by is SortBy.LAST_ACTIVITY:
        return query.order_by(col(User.last_activity).desc().nulls_last(), *newest)
    if sort_by is SortBy.TRAFFIC:
        traffic = (
            select(
                col(Subscription.user_id).label("user_id"),
                func.max(col(Subscription.traffic_used_gb)).label("traffic"),
            )
            .group_by(col(Subscription.user_id))
            .subquery("traffic")
        )
        joined = query.outerjoin(traffic, traffic.c.user_id == col(User.id))
        return joined.order_by(func.coalesce(traffic.c.traffic, 0).desc(), *newest)
    if sort_by in (SortBy.TOTAL_SPENT, SortBy.PURCHASE_COUNT):
        spending = _spending()
        column = spending.c.total_spent if sort_by is SortBy.TOTAL_SPENT else spending.c.purchase_count
        joined = query.outerjoin(spending, spending.c.user_id == col(User.id))
        return joined.order_by(func.coalesce(column, 0).desc(), *newest)
    return query.order_by(*newest)


async def list_users(
    app: Starlette, session: AsyncSession, filters: ListFilter, sort_by: SortBy, limit: int, offset: int
) -> tuple[int, list[User]]:
    """The exact total of the filter (kept briefly in the users plugin's count cache, which
    forgets every total when users change; a filter on subscriptions is counted each time)
    and one page of it."""
    key = (_CACHE_PREFIX, filters)
    cache = count_cache(app)
    # the cache forgets on user changes only: a filter on subscriptions is counted afresh
    cached = None if filters.reads_subscriptions else cache.get(key)
    if cached is None:
        generation = cache.generation
        total = (await session.exec(users.count_query(filters.conditions()))).one()
        if not filters.reads_subscriptions:
            cache.put(key, total, generation)
    else:
        total = cached
    if offset > INT64_MAX - limit:  # no row is that far; the database would refuse the number
        return total, []
    rows = await session.exec(_page_query(filters, sort_by).offset(offset).limit(limit))
    return total, list(rows.all())


async def spending_of(session: AsyncSession, user_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """``{user_id: (total_spent_kopeks, purchase_count)}`` for the users that paid anything."""
    if not user_ids:
        return {}
    spending = _spending()
    query = select(spending.c.user_id, spending.c.total_spent, spending.c.purchase_count).where(
        spending.c.user_id.in_(user_ids)
    )
    return {int(uid): (int(total), int(count)) for uid, total, count in (await session.exec(query)).all()}


def _days_left(end: datetime | None, now: datetime) -> int:
    return max(0, (end - now).days) if end is not None else 0


async def list_items(app: Starlette, session: AsyncSession, rows: Sequence[User]) -> list[UserListItem]:
    """The list items of a page of users: five queries whatever the page size."""
    ids = [user.id for user in rows if user.id is not None]
    if not ids:
        return []
    now = utcnow()
    summaries = await all_summaries(session, ids)
    names = await tariff_names(app, session, [s.tariff_id for _, every in summaries.values() for s in every])
    spent = await spending_of(session, ids)
    group_ids = {user.promo_group_id for user in rows if user.promo_group_id is not None}
    groups: dict[int, str] = {}
    if group_ids:
        found = await session.exec(select(PromoGroup).where(col(PromoGroup.id).in_(group_ids)))
        groups = {group.id: group.name for group in found.all() if group.id is not None}
    settings_rows = await session.exec(
        select(UserAdminSettings).where(col(UserAdminSettings.user_id).in_(ids))
    )
    settings = {row.user_id: row for row in settings_rows.all()}
    items = []
    for user in rows:
        assert user.id is not None
        summary, every = summaries.get(user.id, (None, []))
        listed = [
            from_attributes(
                SubscriptionListItem,
                s,
                status=s.actual_status,
                tariff_name=names.get(s.tariff_id) if s.tariff_id is not None else None,
                days_remaining=_days_left(s.end_date, now),
            )
            for s in every
        ]
        restriction = settings.get(user.id)
        topup = bool(restriction and restriction.restriction_topup)
        purchase = bool(restriction and restriction.restriction_subscription)
        total_spent, purchase_count = spent.get(user.id, (0, 0))
        items.append(
            user_answer(
                UserListItem,
                user,
                has_subscription=summary is not None,
                subscription_status=summary.actual_status if summary else None,
                subscription_is_trial=summary.is_trial if summary else False,
                subscription_end_date=summary.end_date if summary else None,
                tariff_id=summary.tariff_id if summary else None,
                tariff_name=names.get(summary.tariff_id) if summary and summary.tariff_id else None,
                traffic_used_gb=summary.traffic_used_gb if summary else 0,
                traffic_limit_gb=summary.traffic_limit_gb if summary else 0,
                device_limit=summary.device_limit if summary else 0,
                days_remaining=_days_left(summary.end_date, now) if summary else 0,
                subscriptions=listed,
                promo_group_name=groups.get(user.promo_group_id) if user.promo_group_id else None,
                total_spent_kopeks=total_spent,
                purchase_count=purchase_count,
                has_restrictions=topup or purchase,
                restriction_topup=topup,
                restriction_subscription=purchase,
            )
        )
    return items

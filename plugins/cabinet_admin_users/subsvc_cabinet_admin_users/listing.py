"""The users list of the cabinet admin (filters, orders, one page) and the items it shows.

The search and status filters are the users plugin's (the same conditions, indexes and
exact, briefly cached totals); this module adds the e-mail filter, the orders by spending
and traffic, and what an item shows beside the row (its subscription, promo group, spending
and restrictions), each loaded once per page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar
from starlette.applications import Starlette
from subsvc_billing.api import Transaction
from subsvc_promo_groups.api import PromoGroup
from subsvc_subscriptions.api import Subscription
from subsvc_users import api as users
from subsvc_users.api import User, count_cache

from subsvc.api import INT64_MAX
from subsvc_cabinet_admin_users.lookup import current_summaries, user_answer
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_cabinet_admin_users.schemas import SortBy, UserListItem

SUBSCRIPTION_PAYMENT = "subscription_payment"
_CACHE_PREFIX = "cabinet_admin_users"


@dataclass(frozen=True)
class ListFilter:
    status: str | None = None
    search: str | None = None
    email: str | None = None
    referred_by_id: int | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        found = users.filters(status=self.status, search=self.search)
        if self.email:
            found.append(func.lower(col(User.email)).contains(self.email.lower(), autoescape=True))
        if self.referred_by_id is not None:
            found.append(col(User.referred_by_id) == self.referred_by_id)
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
    forgets every total when users change) and one page of it."""
    key = (_CACHE_PREFIX, filters)
    cache = count_cache(app)
    total = cache.get(key)
    if total is None:
        generation = cache.generation
        total = (await session.exec(users.count_query(filters.conditions()))).one()
        cache.put(key, total, generation)
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


async def list_items(session: AsyncSession, rows: Sequence[User]) -> list[UserListItem]:
    """The list items of a page of users: four queries whatever the page size."""
    ids = [user.id for user in rows if user.id is not None]
    if not ids:
        return []
    summaries = await current_summaries(session, ids)
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
        summary = summaries.get(user.id)
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
                promo_group_name=groups.get(user.promo_group_id) if user.promo_group_id else None,
                total_spent_kopeks=total_spent,
                purchase_count=purchase_count,
                has_restrictions=topup or purchase,
                restriction_topup=topup,
                restriction_subscription=purchase,
            )
        )
    return items

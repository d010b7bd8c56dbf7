"""The referral network: who referred whom (``users.referred_by_id``, indexed) and which
campaign registered whom, with revenue and branch sizes. Branches are walked by recursive SQL
(depth at most 50); a graph holds at most 5000 users, the lowest ids first."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_json
from sqlalchemy import ColumnElement, Integer, Table, any_, func, literal, or_
from sqlalchemy import select as sa_select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar
from starlette.applications import Starlette
from starlette.responses import Response
from subsvc_billing.api import DEPOSIT, Transaction
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc_referrals.hookspecs import NetworkCampaign
from subsvc_referrals.models import ReferralEarning
from subsvc_referrals.network_schemas import (
    NetworkCampaignNode,
    TopReferrer,
)
from subsvc_referrals.summaries import campaigns, partner_ids

MAX_DEPTH = 50
MAX_NODES = 5000
USERS: Table = User.__table__  # type: ignore[attr-defined]
SPENDING = ("subscription_payment", "gift_payment")


def among(session: AsyncSession, column: Any, ids: Sequence[int]) -> ColumnElement[bool]:
    """``column IN ids``; on PostgreSQL ``= ANY(:ids)``, one array parameter however many ids
    (an expanded IN of thousands of parameters costs more to compile than to run)."""
    if session.get_bind().dialect.name == "postgresql":
        return column == any_(literal(list(ids), type_=ARRAY(Integer)))  # type: ignore[no-any-return]
    return column.in_(ids)  # type: ignore[no-any-return]


def descendants(roots: Sequence[int]) -> SelectOfScalar[int]:
    """The ids below ``roots`` (not the roots), at most :data:`MAX_DEPTH` levels down."""
    start = select(USERS.c.id, literal(1).label("depth")).where(USERS.c.referred_by_id.in_(roots))
    branch = start.cte("branch", recursive=True)
    step = select(USERS.c.id, (branch.c.depth + 1).label("depth")).select_from(
        USERS.join(branch, USERS.c.referred_by_id == branch.c.id)
    )
    branch = branch.union_all(step.where(branch.c.depth < MAX_DEPTH))
    return select(branch.c.id)


def ancestors(ids: Sequence[int]) -> SelectOfScalar[int]:
    """The referrers above ``ids`` (and ``ids``), at most :data:`MAX_DEPTH` levels up."""
    start = select(USERS.c.id, USERS.c.referred_by_id.label("up"), literal(0).label("depth")).where(
        USERS.c.id.in_(ids)
    )
    chain = start.cte("chain", recursive=True)
    step = select(USERS.c.id, USERS.c.referred_by_id, (chain.c.depth + 1)).select_from(
        USERS.join(chain, USERS.c.id == chain.c.up)
    )
    chain = chain.union_all(step.where(chain.c.depth < MAX_DEPTH))
    return select(chain.c.id)


async def branch_size(session: AsyncSession, roots: Sequence[int]) -> int:
    """How many users are below ``roots`` (each counted once)."""
    inner = descendants(roots).subquery()
    return int((await session.exec(select(func.count(func.distinct(inner.c.id))))).one())


async def member_ids(session: AsyncSession, extra: Iterable[int] = ()) -> list[int]:
    """The network's users: referred ones, referrers and ``extra`` (campaign users), lowest first."""
    referrers = select(USERS.c.referred_by_id).where(USERS.c.referred_by_id.is_not(None))
    query = (
        select(USERS.c.id)
        .where(or_(USERS.c.referred_by_id.is_not(None), USERS.c.id.in_(referrers)))
        .order_by(USERS.c.id)
        .limit(MAX_NODES)
    )
    found = set((await session.exec(query)).all())
    return sorted(found | set(extra))[:MAX_NODES]


USER_COLUMNS = (
    USERS.c.id,
    USERS.c.messenger_id,
    USERS.c.username,
    USERS.c.email,
    USERS.c.first_name,
    USERS.c.last_name,
    USERS.c.referred_by_id,
    USERS.c.created_at,
)
SUBSCRIPTIONS: Table = Subscription.__table__  # type: ignore[attr-defined]
SUBSCRIPTION_COLUMNS = (
    SUBSCRIPTIONS.c.id,
    SUBSCRIPTIONS.c.user_id,
    SUBSCRIPTIONS.c.status,
    SUBSCRIPTIONS.c.is_trial,
    SUBSCRIPTIONS.c.end_date,
)


def display_name(user: Any) -> str:
    """A user's (or a row of :data:`USER_COLUMNS`') name as the network shows it."""
    full = " ".join(part for part in (user.first_name, user.last_name) if part)
    return full or user.username or user.email or f"User {user.id}"


@dataclass
class Facts:
    """What a graph shows of its users, read in a few grouped queries."""

    users: dict[int, Any] = field(default_factory=dict)  # rows of USER_COLUMNS
    direct: dict[int, int] = field(default_factory=dict)
    revenue: dict[int, int] = field(default_factory=dict)
    spent: dict[int, int] = field(default_factory=dict)
    subscription: dict[int, Any] = field(default_factory=dict)  # rows of SUBSCRIPTION_COLUMNS
    partners: set[int] = field(default_factory=set)
    campaign_of: dict[int, int] = field(default_factory=dict)


async def _sums(
    session: AsyncSession, ids: Sequence[int], *conditions: ColumnElement[bool]
) -> dict[int, int]:
    query = (
        select(col(Transaction.user_id), func.sum(col(Transaction.amount_kopeks)))
        .where(
            among(session, col(Transaction.user_id), ids),
            col(Transaction.is_completed).is_(True),
            *conditions,
        )
        .group_by(col(Transaction.user_id))
    )
    return {user_id: int(total or 0) for user_id, total in (await session.exec(query)).all()}


async def facts(
    app: Starlette, session: AsyncSession, ids: Sequence[int], known: Sequence[NetworkCampaign]
) -> Facts:
    found = Facts()
    if not ids:
        return found
    users = await session.exec(sa_select(*USER_COLUMNS).where(among(session, USERS.c.id, ids)))  # type: ignore[call-overload]
    found.users = {user.id: user for user in users.all()}
    direct = (
        select(USERS.c.referred_by_id, func.count())
        .where(among(session, USERS.c.referred_by_id, ids))
        .group_by(USERS.c.referred_by_id)
    )
    found.direct = {referrer: int(n) for referrer, n in (await session.exec(direct)).all()}
    found.revenue = await _sums(
        session, ids, col(Transaction.type) == DEPOSIT, col(Transaction.payment_method).is_not(None)
    )
    found.spent = await _sums(session, ids, col(Transaction.type).in_(SPENDING))
    subscriptions = await session.exec(  # type: ignore[call-overload]
        sa_select(*SUBSCRIPTION_COLUMNS)
        .where(among(session, SUBSCRIPTIONS.c.user_id, ids))
        .order_by(SUBSCRIPTIONS.c.end_date)
    )
    found.subscription = {sub.user_id: sub for sub in subscriptions.all()}  # the latest end wins
    found.partners = await partner_ids(app, session)
    found.campaign_of = {user_id: c.id for c in reversed(known) for user_id in c.user_ids}
    return found


def _branches(ids: Sequence[int], facts: Facts) -> tuple[dict[int, int], dict[int, int]]:
    """Per user of the graph: its users below and their revenue (within the graph)."""
    children: dict[int, list[int]] = defaultdict(list)
    for user_id in ids:
        user = facts.users.get(user_id)
        if user is not None and user.referred_by_id is not None:
            children[user.referred_by_id].append(user_id)
    size: dict[int, int] = {}
    revenue: dict[int, int] = {}

    def walk(root: int) -> None:
        order: list[int] = []
        stack, seen = [root], {root}
        while stack:
            node = stack.pop()
            order.append(node)
            fresh = [child for child in children.get(node, ()) if child not in seen]
            seen.update(fresh)
            stack.extend(fresh)
        for node in reversed(order):
            kids = children.get(node, ())
            size[node] = sum(1 + size.get(kid, 0) for kid in kids)
            revenue[node] = sum(facts.revenue.get(kid, 0) + revenue.get(kid, 0) for kid in kids)

    for user_id in ids:
        if user_id not in size:
            walk(user_id)
    return size, revenue


def user_node(user: Any, facts: Facts, size: int, branch_revenue: int) -> dict[str, Any]:
    """A user as the network shows it (a :class:`NetworkUserNode`'s fields, JSON-ready: a graph
    has thousands, serialised straight to JSON)."""
    assert user.id is not None
    sub = facts.subscription.get(user.id)
    return dict(
        id=user.id,
        tg_id=user.messenger_id,
        username=user.username,
        email=user.email,
        display_name=display_name(user),
        is_partner=user.id in facts.partners,
        referrer_id=user.referred_by_id,
        campaign_id=facts.campaign_of.get(user.id),
        direct_referrals=facts.direct.get(user.id, 0),
        total_branch_users=size,
        branch_revenue_kopeks=branch_revenue,
        personal_revenue_kopeks=facts.revenue.get(user.id, 0),
        personal_spent_kopeks=facts.spent.get(user.id, 0),
        subscription_name=None if sub is None else ("Trial" if sub.is_trial else f"Subscription #{sub.id}"),
        subscription_end=None if sub is None else sub.end_date.isoformat(),
        subscription_status=None if sub is None else sub.status,
        registered_at=user.created_at.isoformat() if user.created_at else None,
    )


async def campaign_node(session: AsyncSession, campaign: NetworkCampaign) -> NetworkCampaignNode:
    """A campaign with its users, those below them, their revenue and top referrers."""
    direct = list(campaign.user_ids)
    below = await branch_size(session, direct) if direct else 0
    revenue = (
        await _sums(
            session, direct, col(Transaction.type) == DEPOSIT, col(Transaction.payment_method).is_not(None)
        )
        if direct
        else {}
    )
    paying = [amount for amount in revenue.values() if amount > 0]
    top: list[TopReferrer] = []
    if direct:
        referee = USERS.alias("referee")
        query = (
            select(USERS.c.id, USERS.c.username, func.count(referee.c.id).label("n"))
            .select_from(USERS.join(referee, referee.c.referred_by_id == USERS.c.id))
            .where(USERS.c.id.in_(direct))
            .group_by(USERS.c.id, USERS.c.username)
            .order_by(func.count(referee.c.id).desc(), USERS.c.id)
            .limit(5)
        )
        top = [
            TopReferrer(user_id=user_id, username=username, referral_count=int(n))
            for user_id, username, n in (await session.exec(query)).all()
        ]
    total_revenue = sum(paying)
    return NetworkCampaignNode(
        id=campaign.id,
        name=campaign.name,
        start_parameter=campaign.start_parameter,
        is_active=campaign.is_active,
        direct_users=len(direct),
        total_network_users=len(direct) + below,
        total_revenue_kopeks=total_revenue,
        conversion_rate=round(len(paying) / len(direct) * 100, 2) if direct else 0.0,
        avg_check_kopeks=total_revenue // len(paying) if paying else 0,
        top_referrers=top,
    )


async def graph(
    app: Starlette, session: AsyncSession, ids: Sequence[int], known: Sequence[NetworkCampaign]
) -> dict[str, Any]:
    """The graph of users ``ids`` and campaigns ``known``: a :class:`NetworkGraphResponse`'s
    fields, JSON-ready."""
    ids = sorted(set(ids))[:MAX_NODES]
    found = await facts(app, session, ids, known)
    size, branch_revenue = _branches(ids, found)
    users = [
        user_node(found.users[i], found, size.get(i, 0), branch_revenue.get(i, 0))
        for i in ids
        if i in found.users
    ]
    members = set(found.users)
    edges = [
        {"source": f"user_{node['referrer_id']}", "target": f"user_{node['id']}", "type": "referral"}
        for node in users
        if node["referrer_id"] in members
    ]
    edges += [
        {"source": f"campaign_{c.id}", "target": f"user_{user_id}", "type": "campaign"}
        for c in known
        for user_id in c.user_ids
        if user_id in members
    ]
    total_earnings = (
        await session.exec(select(func.coalesce(func.sum(col(ReferralEarning.amount_kopeks)), 0)))
    ).one()
    return {
        "users": users,
        "campaigns": [(await campaign_node(session, c)).model_dump(mode="json") for c in known],
        "edges": edges,
        "total_users": len(users),
        "total_referrers": sum(1 for node in users if node["direct_referrals"] > 0),
        "total_campaigns": len(known),
        "total_earnings_kopeks": int(total_earnings),
        "total_subscription_revenue_kopeks": sum(node["personal_spent_kopeks"] for node in users),
    }


def graph_answer(graph: dict[str, Any]) -> Response:
    """A graph as the JSON answer (its shape is :class:`NetworkGraphResponse`, tested)."""
    return Response(to_json(graph), media_type="application/json")


async def full_graph(app: Starlette, session: AsyncSession) -> dict[str, Any]:
    known = await campaigns(app, session, None)
    ids = await member_ids(session, (user_id for c in known for user_id in c.user_ids))
    return await graph(app, session, ids, known)


async def branch_revenue(session: AsyncSession, below: object) -> int:
    """The real payments (deposits through a provider) of the users of subquery ``below``."""
    query = select(func.coalesce(func.sum(col(Transaction.amount_kopeks)), 0)).where(
        col(Transaction.user_id).in_(select(below.c.id)),  # type: ignore[attr-defined]
        col(Transaction.type) == DEPOSIT,
        col(Transaction.payment_method).is_not(None),
        col(Transaction.is_completed).is_(True),
    )
    return int((await session.exec(query)).one())

"""`/cabinet/admin/referral-network` (tag Cabinet Admin Referral Network, permission
`stats:read`): the graph of referrers, referees and campaigns."""

from __future__ import annotations

from typing import Annotated

from sqlalchemy import ColumnElement, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response
from subsvc_users.api import User

from subsvc.api import HTTPError, Query, Router
from subsvc_referrals import network
from subsvc_referrals.network_schemas import (
    CampaignOption,
    NetworkCampaignDetail,
    NetworkGraphResponse,
    NetworkSearchResult,
    NetworkUserDetail,
    NetworkUserNode,
    PartnerOption,
    ScopeOptionsResponse,
)
from subsvc_referrals.summaries import campaigns, partner_ids

router = Router(area="cabinet-admin", tag="Cabinet Admin Referral Network", permission="stats:read")
BASE = "/cabinet/admin/referral-network"
NOTHING_SELECTED = "At least one campaign, partner, or user must be selected"
TOO_MANY = "Too many items selected (max 50)"
NONE_VALID = "No valid items found for the provided IDs"
Ids = Annotated[list[int], Query(max_length=50)]
SEARCH_LIMIT = 20


@router.get(f"{BASE}/", summary="Get Referral Network", response_model=NetworkGraphResponse)
async def get_referral_network(request: Request, session: AsyncSession) -> Response:
    """Get the whole referral network (at most 5000 users, the lowest ids first)."""
    return network.graph_answer(await network.full_graph(request.app, session))


@router.get(f"{BASE}/scope-options", summary="Get Scope Options")
async def get_scope_options(request: Request, session: AsyncSession) -> ScopeOptionsResponse:
    """Get the campaigns and partners a graph may be scoped to."""
    known = await campaigns(request.app, session, None)
    partners = sorted(await partner_ids(request.app, session))
    users = (await session.exec(select(User).where(col(User.id).in_(partners)))).all() if partners else []
    return ScopeOptionsResponse(
        campaigns=[
            CampaignOption(
                id=c.id,
                name=c.name,
                start_parameter=c.start_parameter,
                is_active=c.is_active,
                direct_users=len(c.user_ids),
            )
            for c in known
        ],
        partners=[
            PartnerOption(
                id=user.id,
                display_name=network.display_name(user),
                username=user.username,
                campaign_count=sum(1 for c in known if c.partner_user_id == user.id),
            )
            for user in sorted(users, key=lambda u: u.id or 0)
        ],
    )


@router.get(
    f"{BASE}/scoped",
    summary="Get Scoped Referral Network",
    response_model=NetworkGraphResponse,
    responses={400: f"{NOTHING_SELECTED}; {TOO_MANY}; {NONE_VALID}"},
)
async def get_scoped_network(
    request: Request,
    session: AsyncSession,
    campaign_ids: Ids = [],  # noqa: B006
    partner_ids: Ids = [],  # noqa: B006
    user_ids: Ids = [],  # noqa: B006
) -> Response:
    """Get the graph of the chosen campaigns, partners and users: them, every user below them
    (recursive, at most 50 levels) and the referrers above."""
    if not (campaign_ids or partner_ids or user_ids):
        raise HTTPError(400, NOTHING_SELECTED)
    if len(campaign_ids) + len(partner_ids) + len(user_ids) > 50:
        raise HTTPError(400, TOO_MANY)
    known = await campaigns(request.app, session, sorted(set(campaign_ids))) if campaign_ids else []
    wanted = sorted(set(partner_ids) | set(user_ids))
    existing = (
        [
            i
            for i in (await session.exec(select(col(User.id)).where(col(User.id).in_(wanted)))).all()
            if i is not None
        ]
        if wanted
        else []
    )
    roots = sorted(set(existing) | {user_id for c in known for user_id in c.user_ids})
    if not roots and not known:
        raise HTTPError(400, NONE_VALID)
    ids: set[int] = set(roots)
    if roots:
        below = network.descendants(roots).order_by(None).limit(network.MAX_NODES)
        ids |= set((await session.exec(below)).all())
        ids |= set((await session.exec(network.ancestors(roots))).all())
    return network.graph_answer(await network.graph(request.app, session, sorted(ids), known))


@router.get(f"{BASE}/user/{{user_id}}", summary="Get Network User Detail", responses={404: "User not found"})
async def get_network_user(request: Request, session: AsyncSession, user_id: int) -> NetworkUserDetail:
    """Get a user of the network: referrer, campaign, direct referrals, the whole branch below
    (recursive, at most 50 levels) and its revenue."""
    user = await session.get(User, user_id)
    if user is None:
        raise HTTPError(404, "User not found")
    known = await campaigns(request.app, session, None)
    facts = await network.facts(request.app, session, [user_id], known)
    below = network.descendants([user_id]).subquery()
    branch_revenue = await network.branch_revenue(session, below)
    node = network.user_node(user, facts, await network.branch_size(session, [user_id]), branch_revenue)
    referrer = await session.get(User, user.referred_by_id) if user.referred_by_id is not None else None
    campaign = next((c for c in known if c.id == node["campaign_id"]), None)
    return NetworkUserDetail(
        **node,
        referrer_display_name=network.display_name(referrer) if referrer is not None else None,
        campaign_name=campaign.name if campaign is not None else None,
    )


@router.get(
    f"{BASE}/campaign/{{campaign_id}}",
    summary="Get Network Campaign Detail",
    responses={404: "Campaign not found"},
)
async def get_network_campaign(
    request: Request, session: AsyncSession, campaign_id: int
) -> NetworkCampaignDetail:
    """Get a campaign of the network: its users, those below them, revenue, top referrers."""
    found = await campaigns(request.app, session, [campaign_id])
    if not found:
        raise HTTPError(404, "Campaign not found")
    return NetworkCampaignDetail(**(await network.campaign_node(session, found[0])).model_dump())


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


@router.get(f"{BASE}/search", summary="Search Referral Network")
async def search_network(
    request: Request,
    session: AsyncSession,
    q: Annotated[str, Query(min_length=1, max_length=200, description="Search query")],
) -> NetworkSearchResult:
    """Search users (username or email contains, case-insensitive; a number: the exact user id
    or messenger id) and campaigns (name contains); at most 20 of each."""
    text = q.strip()
    pattern = _like(text)
    conditions: list[ColumnElement[bool]] = [
        col(User.username).ilike(pattern, escape="\\"),
        col(User.email).ilike(pattern, escape="\\"),
    ]
    if text.isdigit():
        conditions += [col(User.id) == int(text), col(User.messenger_id) == int(text)]
    query = select(col(User.id)).where(or_(*conditions)).order_by(col(User.id)).limit(SEARCH_LIMIT)
    ids = [i for i in (await session.exec(query)).all() if i is not None]
    known = await campaigns(request.app, session, None)
    matched = [c for c in known if text.lower() in c.name.lower()][:SEARCH_LIMIT]
    graph = await network.graph(request.app, session, ids, known)
    return NetworkSearchResult(
        users=[NetworkUserNode(**node) for node in graph["users"]],
        campaigns=[await network.campaign_node(session, c) for c in matched],
    )

"""``/cabinet/admin/campaigns`` (tag Cabinet Admin Campaigns, permissions ``campaigns:*``):
the editor's lists, CRUD, toggle, statistics, chart data and registrations."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_servers.api import Server
from subsvc_subscriptions.api import Subscription
from subsvc_tariffs.api import list_tariffs
from subsvc_users.api import USERS, User

from subsvc.api import HTTPError, Query, Router
from subsvc.auth.principal import Principal
from subsvc.db import utcnow
from subsvc_campaigns import service, stats, totals
from subsvc_campaigns.models import Campaign, CampaignTotals
from subsvc_campaigns.schemas import (
    AdminCampaignChartDataResponse,
    AvailablePartnerItem,
    CabinetCampaignCreateRequest,
    CabinetCampaignListResponse,
    CabinetCampaignUpdateRequest,
    CampaignDetailResponse,
    CampaignListItem,
    CampaignReferralItem,
    CampaignRegistrationItem,
    CampaignRegistrationsResponse,
    CampaignsOverviewResponse,
    CampaignStatisticsResponse,
    CampaignToggleResponse,
    DailyStatItem,
    PeriodComparison,
    PeriodStats,
    ServerSquadInfo,
    TariffListItem,
)
from subsvc_campaigns.settings import CampaignsSettings
from subsvc_campaigns.views import detail_view, partner_names

router = Router(area="cabinet-admin", tag="Cabinet Admin Campaigns", prefix="/cabinet/admin/campaigns")
READ, CREATE, EDIT, DELETE, STATS = (f"campaigns:{a}" for a in ("read", "create", "edit", "delete", "stats"))
ONE = "/{campaign_id}"
NOT_FOUND = {404: service.NOT_FOUND}
REFUSED = {400: "Campaign with start parameter '{slug}' already exists, Tariff not found, ..."}
CHART_DAYS, COMPARE_DAYS = 30, 7


def _settings(request: Request) -> CampaignsSettings:
    return CampaignsSettings.of(request.app)


async def _one(session: AsyncSession, campaign_id: int) -> Campaign:
    try:
        return await service.get_campaign(session, campaign_id)
    except service.CampaignMissing as exc:
        raise HTTPError(404, str(exc)) from exc


@router.get("/overview", permission=READ)
async def get_overview(session: AsyncSession) -> CampaignsOverviewResponse:
    """Totals over every campaign."""
    figures = await stats.overview(session)
    return CampaignsOverviewResponse(
        **figures, total_balance_issued_rubles=figures["total_balance_issued_kopeks"] / 100
    )


@router.get("/available-servers", permission=READ)
async def get_available_servers(session: AsyncSession) -> list[ServerSquadInfo]:
    """The available squads a subscription bonus may give."""
    query = select(Server).where(col(Server.is_available)).order_by(col(Server.sort_order), col(Server.id))
    return [
        ServerSquadInfo.model_validate(s, from_attributes=True) for s in (await session.exec(query)).all()
    ]


@router.get("/available-tariffs", permission=READ)
async def get_available_tariffs(session: AsyncSession) -> list[TariffListItem]:
    """The active tariffs a tariff bonus may give, with their live subscriptions."""
    tariffs = await list_tariffs(session, include_inactive=False)
    counted = select(Subscription.tariff_id, sa.func.count()).where(col(Subscription.tariff_id).is_not(None))
    counts = dict((await session.exec(counted.group_by(col(Subscription.tariff_id)))).all())
    return [
        TariffListItem.model_validate(
            {
                **t.model_dump(),
                "servers_count": len(t.allowed_squads),
                "subscriptions_count": counts.get(t.id, 0),
            }
        )
        for t in tariffs
    ]


@router.get("/available-partners", permission=READ)
async def get_available_partners(request: Request, session: AsyncSession) -> list[AvailablePartnerItem]:
    """The approved partners a campaign may be assigned to (hook ``campaign_partner_ids``,
    answered by the partners plugin; none without it)."""
    ids = sorted(await service.approved_partner_ids(request.app, session))
    if not ids:
        return []
    query = select(User.id, User.username, User.first_name).where(col(User.id).in_(ids))
    rows = (await session.exec(query.order_by(col(User.id)))).all()
    return [AvailablePartnerItem(user_id=i, username=u, first_name=f) for i, u, f in rows if i is not None]


@router.get("", permission=READ)
async def list_campaigns(
    session: AsyncSession,
    include_inactive: bool = True,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> CabinetCampaignListResponse:
    """A page of campaigns with registrations, revenue and conversion (three statements)."""
    campaigns, total = await service.list_campaigns(
        session, include_inactive=include_inactive, offset=offset, limit=limit
    )
    ids = [c.id for c in campaigns if c.id is not None]
    kept = await totals.by_campaign(session, ids)
    names = await partner_names(session, {c.partner_user_id for c in campaigns if c.partner_user_id})
    items = []
    for c in campaigns:
        row = kept.get(c.id or 0) or CampaignTotals(campaign_id=c.id or 0)
        items.append(
            CampaignListItem.model_validate(
                {
                    **c.model_dump(),
                    "registrations_count": row.registrations,
                    "total_revenue_kopeks": row.revenue_kopeks,
                    "conversion_rate": stats.percent(row.paid_users, row.registrations),
                    "partner_name": names.get(c.partner_user_id) if c.partner_user_id else None,
                }
            )
        )
    return CabinetCampaignListResponse(campaigns=items, total=total)


def _refused(exc: service.CampaignError) -> HTTPError:
    return HTTPError(400, str(exc))


@router.post("", permission=CREATE, responses=REFUSED)
async def create_new_campaign(
    request: Request, session: AsyncSession, principal: Principal, payload: CabinetCampaignCreateRequest
) -> CampaignDetailResponse:
    """Create a campaign; the administrator is its creator."""
    fields = payload.model_dump()
    duplicate = f"Campaign with start parameter '{payload.start_parameter}' already exists"
    try:
        await service.check_references(request.app, session, fields)
        admin_user = await session.get(User, principal.id) if principal.kind == "user" else None
        creator = admin_user.id if admin_user is not None else None
        campaign = await service.create_campaign(session, fields, created_by=creator, duplicate=duplicate)
    except service.CampaignError as exc:
        raise _refused(exc) from exc
    return await detail_view(session, _settings(request), campaign)


@router.get(ONE, permission=READ, responses=NOT_FOUND)
async def get_campaign(request: Request, session: AsyncSession, campaign_id: int) -> CampaignDetailResponse:
    """One campaign."""
    return await detail_view(session, _settings(request), await _one(session, campaign_id))


@router.put(ONE, permission=EDIT, responses={**NOT_FOUND, **REFUSED})
async def update_existing_campaign(
    request: Request, session: AsyncSession, campaign_id: int, payload: CabinetCampaignUpdateRequest
) -> CampaignDetailResponse:
    """Change the fields sent (``partner_user_id: null`` clears the partner)."""
    campaign = await _one(session, campaign_id)
    fields = payload.model_dump(exclude_unset=True)
    fields = {k: v for k, v in fields.items() if v is not None or k in ("partner_user_id", "tariff_id")}
    merged = {"bonus_type": campaign.bonus_type, "tariff_id": campaign.tariff_id, **fields}
    duplicate = f"Campaign with start parameter '{fields.get('start_parameter')}' already exists"
    try:
        partner = {"partner_user_id": fields.get("partner_user_id")}
        await service.check_references(request.app, session, {**merged, **partner})
        campaign = await service.update_campaign(session, campaign, fields, duplicate=duplicate)
    except service.CampaignError as exc:
        raise _refused(exc) from exc
    return await detail_view(session, _settings(request), campaign)


@router.delete(ONE, permission=DELETE, responses={**NOT_FOUND, 400: service.HAS_REGISTRATIONS})
async def delete_existing_campaign(session: AsyncSession, campaign_id: int) -> dict[str, Any]:
    """Delete a campaign nobody registered through (else 400: deactivate it instead)."""
    try:
        await service.delete_campaign(session, await _one(session, campaign_id))
    except service.CampaignError as exc:
        raise _refused(exc) from exc
    return {"message": "Campaign deleted successfully"}


@router.post(f"{ONE}/toggle", permission=EDIT, responses=NOT_FOUND)
async def toggle_campaign(session: AsyncSession, campaign_id: int) -> CampaignToggleResponse:
    """Activate an inactive campaign, deactivate an active one."""
    campaign = await _one(session, campaign_id)
    campaign = await service.update_campaign(session, campaign, {"is_active": not campaign.is_active})
    state = "activated" if campaign.is_active else "deactivated"
    assert campaign.id is not None
    return CampaignToggleResponse(id=campaign.id, is_active=campaign.is_active, message=f"Campaign {state}")


@router.get(f"{ONE}/stats", permission=STATS, responses=NOT_FOUND)
async def get_campaign_stats(
    request: Request, session: AsyncSession, campaign_id: int
) -> CampaignStatisticsResponse:
    """Registrations, bonuses issued, revenue, trials and conversion of a campaign."""
    campaign = await _one(session, campaign_id)
    deep_link, web_link = _settings(request).links(campaign.start_parameter)
    figures = await stats.campaign_figures(session, await totals.of(session, campaign_id), utcnow())
    return CampaignStatisticsResponse.model_validate(
        {**campaign.model_dump(), **figures, "deep_link": deep_link, "web_link": web_link}
    )


@router.get(f"{ONE}/chart-data", permission=STATS, responses=NOT_FOUND)
async def get_campaign_chart_data(session: AsyncSession, campaign_id: int) -> AdminCampaignChartDataResponse:
    """Daily registrations and revenue of the last 30 days, the last 7 days against the 7
    before, the registered users who paid the most."""
    await _one(session, campaign_id)
    now = utcnow()
    days = await totals.daily(session, campaign_id, now - timedelta(days=CHART_DAYS))
    current_start, previous_start = stats.window(now, COMPARE_DAYS)
    recent = await totals.daily(session, campaign_id, previous_start)
    split = current_start.date().isoformat()
    current = [v for k, v in recent.items() if k > split]
    previous = [v for k, v in recent.items() if k <= split]
    now_stats = PeriodStats(
        days=COMPARE_DAYS,
        referrals_count=sum(r for r, _ in current),
        earnings_kopeks=sum(e for _, e in current),
    )
    before = PeriodStats(
        days=COMPARE_DAYS,
        referrals_count=sum(r for r, _ in previous),
        earnings_kopeks=sum(e for _, e in previous),
    )
    revenue = await totals.of(session, campaign_id)
    top = [
        CampaignReferralItem(
            id=row.id,
            full_name=row.first_name or row.username or f"#{row.id}",
            created_at=row.created_at,
            has_paid=True,
            is_active=row.status == "active",
            total_earnings_kopeks=int(row.kopeks or 0),
        )
        for row in await stats.top_registrations(session, campaign_id)
    ]
    return AdminCampaignChartDataResponse(
        campaign_id=campaign_id,
        total_deposits_kopeks=revenue.revenue_kopeks,
        total_spending_kopeks=await stats.spending(session, campaign_id),
        daily_stats=[
            DailyStatItem(date=day, referrals_count=r, earnings_kopeks=e)
            for day, (r, e) in sorted(days.items())
        ],
        period_comparison=PeriodComparison.of(now_stats, before),
        top_registrations=top,
    )


@router.get(f"{ONE}/registrations", permission=READ, responses=NOT_FOUND)
async def get_campaign_registrations(
    session: AsyncSession,
    campaign_id: int,
    page: Annotated[int, Query(ge=1)] = 1,
    per_page: Annotated[int, Query(ge=1, le=100)] = 50,
) -> CampaignRegistrationsResponse:
    """A page of the campaign's registrations, newest first, with each user's state (one
    statement for the page)."""
    await _one(session, campaign_id)
    reg = stats.REG
    has_subscription = sa.exists().where(stats.SUBS.c.user_id == reg.c.user_id)
    has_paid = sa.exists().where(stats.TX.c.user_id == reg.c.user_id, stats.PAID)
    query = (
        sa.select(
            reg,
            USERS.c.messenger_id,
            USERS.c.username,
            USERS.c.first_name,
            USERS.c.balance_kopeks.label("user_balance_kopeks"),
            has_subscription.label("has_subscription"),
            has_paid.label("has_paid"),
        )
        .select_from(reg.join(USERS, USERS.c.id == reg.c.user_id))
        .where(reg.c.campaign_id == campaign_id)
        .order_by(reg.c.created_at.desc(), reg.c.id.desc())
        .offset((page - 1) * per_page)
        .limit(per_page)
    )
    rows = (await session.exec(query)).mappings().all()  # type: ignore[call-overload]
    return CampaignRegistrationsResponse(
        registrations=[CampaignRegistrationItem.model_validate(dict(row)) for row in rows],
        total=await service.registrations_count(session, campaign_id),
        page=page,
        per_page=per_page,
    )

""" "Cabinet Admin Partners" (`/cabinet/admin/partners`): the settings, applications and their
decisions, the partners, their commission and revocation."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_campaigns.api import partner_campaigns, set_campaign_partner
from subsvc_referrals.api import referral_settings, update_referral_settings
from subsvc_users.api import User

from subsvc.api import HTTPError, Offset, Query, Router
from subsvc.auth.principal import Principal
from subsvc.db import page_of
from subsvc_partners import config, notices, programme, web_stats
from subsvc_partners.models import Partner, PartnerApplication, WithdrawalRequest
from subsvc_partners.money import PENDING
from subsvc_partners.people import earnings_since, identity, period_starts, referee_counts, users_by_id
from subsvc_partners.schemas import (
    AdminApproveRequest,
    AdminPartnerApplicationItem,
    AdminPartnerApplicationsResponse,
    AdminPartnerDetailResponse,
    AdminPartnerItem,
    AdminPartnerListResponse,
    AdminRejectRequest,
    AdminUpdateCommissionRequest,
    CampaignSummary,
    PartnerSettingsResponse,
    PartnerSettingsUpdateRequest,
)

router = Router(area="cabinet-admin", tag="Cabinet Admin Partners")
BASE = "/cabinet/admin/partners"
CAMPAIGN_NOT_FOUND = "Кампания не найдена"
CAMPAIGN_TAKEN = "Кампания уже привязана к другому партнёру"
CAMPAIGN_NOT_THEIRS = "Кампания не привязана к этому партнёру"
Limit100 = Annotated[int, Query(ge=1, le=100)]


REFERRAL_FIELDS = {  # ours -> referrals' setting, stored through its api
    "referral_program_enabled": "enabled",
    "first_payment_commission_percent": "first_payment_commission_percent",
    "recurring_commission_tiers": "recurring_commission_tiers",
}


async def _settings(
    request: Request, session: AsyncSession | None = None, **changes: Any
) -> PartnerSettingsResponse:
    """The settings; with ``session``, after storing ``changes`` in it (referrals' own values
    through its api; its cached configuration is read before the change, never after)."""
    referral = dataclasses.asdict(await referral_settings(request.app))
    ours = {k: v for k, v in changes.items() if k not in REFERRAL_FIELDS}
    theirs = {REFERRAL_FIELDS[k]: v for k, v in changes.items() if k in REFERRAL_FIELDS}
    if session is None:
        current = await config.partner_config(request.app)
    else:
        if theirs:
            try:
                await update_referral_settings(request.app, session, theirs)
            except ValueError as error:
                raise HTTPError(400, str(error)) from None
            referral |= theirs
        current = await config.write(session, request.app, ours)
    return PartnerSettingsResponse(
        **dataclasses.asdict(current),
        **{name: referral[key] for name, key in REFERRAL_FIELDS.items()},
    )


@router.get(f"{BASE}/settings", summary="Get Partner Settings", permission="partners:settings")
async def get_partner_settings(request: Request) -> PartnerSettingsResponse:
    """The partner and withdrawal settings, and the referral programme's."""
    return await _settings(request)


@router.patch(
    f"{BASE}/settings",
    summary="Update Partner Settings",
    permission="partners:settings",
    responses={400: "A bad value (e.g. commission tiers)"},
)
async def update_partner_settings(
    request: Request, session: AsyncSession, payload: PartnerSettingsUpdateRequest
) -> PartnerSettingsResponse:
    """Store the values sent (null: unchanged) in the database; every instance uses them once
    committed."""
    return await _settings(request, session, **payload.model_dump(exclude_none=True))


@router.get(f"{BASE}/applications", summary="List Applications", permission="partners:read")
async def list_applications(
    session: AsyncSession,
    status: Annotated[Literal["pending", "approved", "rejected", "none"] | None, Query()] = None,
    offset: Offset = 0,
    limit: Limit100 = 50,
) -> AdminPartnerApplicationsResponse:
    """Applications newest first, with the applicant."""
    where = [col(PartnerApplication.status) == status] if status else []
    order = [col(PartnerApplication.id).desc()]
    rows, total = await page_of(session, PartnerApplication, where, order, offset, limit)
    users = await users_by_id(session, [r.user_id for r in rows])
    items = [
        AdminPartnerApplicationItem.model_validate({**row.model_dump(), **identity(users.get(row.user_id))})
        for row in rows
    ]
    return AdminPartnerApplicationsResponse(items=items, total=total)


DECIDED = {400: f"{programme.APPLICATION_NOT_FOUND} / {programme.ALREADY_PROCESSED}"}


@router.post(
    f"{BASE}/applications/{{application_id}}/approve",
    summary="Approve Application",
    permission="partners:approve",
    response_model=dict[str, bool],
    responses=DECIDED,
)
async def approve_application(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    application_id: int,
    payload: AdminApproveRequest,
) -> dict[str, bool]:
    """Approve a pending application with the partner's commission percent; the user is told."""
    percent = payload.commission_percent
    application = await programme.decide(
        session, application_id, principal.id, True, percent, payload.comment
    )
    text = f"✅ Ваша заявка на партнёрство одобрена. Ваша комиссия: {percent}%."
    notices.to_user(request.app, session, application.user_id, text)
    return {"success": True}


@router.post(
    f"{BASE}/applications/{{application_id}}/reject",
    summary="Reject Application",
    permission="partners:approve",
    response_model=dict[str, bool],
    responses=DECIDED,
)
async def reject_application(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    application_id: int,
    payload: AdminRejectRequest,
) -> dict[str, bool]:
    """Reject a pending application (the user may apply again); the user is told why."""
    application = await programme.decide(session, application_id, principal.id, False, None, payload.comment)
    reason = f" Причина: {payload.comment}" if payload.comment else ""
    notices.to_user(
        request.app, session, application.user_id, f"❌ Ваша заявка на партнёрство отклонена.{reason}"
    )
    return {"success": True}


@router.get(
    f"{BASE}/stats", summary="Get Partner Stats", permission="partners:read", response_model=dict[str, int]
)
async def get_partner_stats(session: AsyncSession) -> dict[str, int]:
    """Programme totals: partners, pending applications, their referrals and earnings, pending
    withdrawals."""
    partner_ids = list(
        (await session.exec(select(Partner.user_id).where(col(Partner.status) == programme.APPROVED))).all()
    )
    counts = await referee_counts(session, partner_ids)
    earnings = await earnings_since(session, partner_ids)
    pending_applications = (
        await session.exec(
            select(func.count())
            .select_from(PartnerApplication)
            .where(col(PartnerApplication.status) == PENDING)
        )
    ).one()
    pending_withdrawals = (
        await session.exec(
            select(func.count())
            .select_from(WithdrawalRequest)
            .where(col(WithdrawalRequest.status) == PENDING)
        )
    ).one()
    return {
        "total_partners": len(partner_ids),
        "pending_applications": pending_applications,
        "total_referrals": sum(c[0] for c in counts.values()),
        "total_earnings_kopeks": sum(earnings.values()),
        "pending_withdrawals": pending_withdrawals,
    }


@router.get(BASE, summary="List Partners", permission="partners:read")
async def list_partners(
    session: AsyncSession, offset: Offset = 0, limit: Limit100 = 50
) -> AdminPartnerListResponse:
    """Approved partners newest first, with referral counts and earnings."""
    approved = [col(Partner.status) == programme.APPROVED]
    rows, total = await page_of(session, Partner, approved, [col(Partner.updated_at).desc()], offset, limit)
    ids = [r.user_id for r in rows]
    users, counts, earnings = (
        await users_by_id(session, ids),
        await referee_counts(session, ids),
        await earnings_since(session, ids),
    )
    items = [
        AdminPartnerItem(
            user_id=r.user_id,
            **identity(users[r.user_id]),
            commission_percent=r.commission_percent,
            total_referrals=counts.get(r.user_id, (0, 0, 0))[0],
            total_earnings_kopeks=earnings.get(r.user_id, 0),
            balance_kopeks=users[r.user_id].balance_kopeks,
            partner_status=r.status,
            created_at=users[r.user_id].created_at,
        )
        for r in rows
        if r.user_id in users
    ]
    return AdminPartnerListResponse(items=items, total=total)


@router.get(
    f"{BASE}/{{user_id}}",
    summary="Get Partner Detail",
    permission="partners:read",
    responses={404: programme.USER_NOT_FOUND},
)
async def get_partner_detail(session: AsyncSession, user_id: int) -> AdminPartnerDetailResponse:
    """A user's partner standing and figures."""
    user = await session.get(User, user_id)
    if user is None:
        raise HTTPError(404, programme.USER_NOT_FOUND)
    row = await programme.partner_of(session, user_id)
    total, paid, active = (await referee_counts(session, [user_id])).get(user_id, (0, 0, 0))
    starts = period_starts()
    campaigns = await partner_campaigns(session, user_id)
    figures = await web_stats.campaign_figures(session, user_id, [c.id for c in campaigns])
    earned = {
        name: (await earnings_since(session, [user_id], since)).get(user_id, 0)
        for name, since in starts.items()
    }
    return AdminPartnerDetailResponse(
        user_id=user_id,
        **identity(user),
        commission_percent=row.commission_percent if row else None,
        partner_status=row.status if row else programme.NONE,
        balance_kopeks=user.balance_kopeks,
        total_referrals=total,
        paid_referrals=paid,
        active_referrals=active,
        earnings_all_time=(await earnings_since(session, [user_id])).get(user_id, 0),
        earnings_today=earned["today"],
        earnings_week=earned["week"],
        earnings_month=earned["month"],
        conversion_to_paid=round(paid / total * 100, 2) if total else 0.0,
        campaigns=[
            CampaignSummary(
                id=c.id,
                name=c.name,
                start_parameter=c.start_parameter,
                is_active=c.is_active,
                registrations_count=c.registrations,
                referrals_count=figures.get(c.id, (0, 0))[0],
                earnings_kopeks=figures.get(c.id, (0, 0))[1],
            )
            for c in campaigns
        ],
        created_at=user.created_at,
    )


@router.patch(
    f"{BASE}/{{user_id}}/commission",
    summary="Update Commission",
    permission="partners:edit",
    response_model=dict[str, Any],
    responses={400: programme.NOT_A_PARTNER, 404: programme.USER_NOT_FOUND},
)
async def update_commission(
    session: AsyncSession, user_id: int, payload: AdminUpdateCommissionRequest
) -> dict[str, Any]:
    """Set an approved partner's individual commission percent."""
    await programme.set_commission(session, user_id, payload.commission_percent)
    return {"success": True, "commission_percent": payload.commission_percent}


@router.post(
    f"{BASE}/{{user_id}}/revoke",
    summary="Revoke Partner",
    permission="partners:revoke",
    response_model=dict[str, bool],
    responses={400: programme.NOT_A_PARTNER},
)
async def revoke_partner(session: AsyncSession, user_id: int) -> dict[str, bool]:
    """Take the partner status away (the individual percent and the campaigns with it); referees
    keep their referrer."""
    await programme.revoke(session, user_id)
    return {"success": True}


CAMPAIGN = f"{BASE}/{{user_id}}/campaigns/{{campaign_id}}"


def _settled(done: bool | None, refused: str) -> dict[str, bool]:
    """The answer to ``set_campaign_partner``'s: 404 without the campaign, 400 ``refused`` when
    its partner was not the one expected."""
    if done is None:
        raise HTTPError(404, CAMPAIGN_NOT_FOUND)
    if not done:
        raise HTTPError(400, refused)
    return {"success": True}


@router.post(
    f"{CAMPAIGN}/assign",
    summary="Assign Campaign",
    permission="partners:edit",
    response_model=dict[str, bool],
    responses={400: f"{programme.NOT_A_PARTNER}, {CAMPAIGN_TAKEN}", 404: CAMPAIGN_NOT_FOUND},
)
async def assign_campaign(session: AsyncSession, user_id: int, campaign_id: int) -> dict[str, bool]:
    """Assign a campaign to a partner: free, or already theirs (one conditional update)."""
    await programme.require_partner(session, user_id, missing=400)
    done = await set_campaign_partner(session, campaign_id, user_id, expected=None)
    return _settled(done, CAMPAIGN_TAKEN)


@router.post(
    f"{CAMPAIGN}/unassign",
    summary="Unassign Campaign",
    permission="partners:edit",
    response_model=dict[str, bool],
    responses={400: CAMPAIGN_NOT_THEIRS, 404: CAMPAIGN_NOT_FOUND},
)
async def unassign_campaign(session: AsyncSession, user_id: int, campaign_id: int) -> dict[str, bool]:
    """Unassign a campaign from the partner who has it (one conditional update)."""
    done = await set_campaign_partner(session, campaign_id, None, expected=user_id)
    return _settled(done, CAMPAIGN_NOT_THEIRS)

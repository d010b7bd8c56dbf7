"""The user's side: "Cabinet Partner" (`/cabinet/referral/partner/...`) and "Cabinet Withdrawal"
(`/cabinet/referral/withdrawal/...`)."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_campaigns.api import (
    CampaignReferralItem,
    DailyStatItem,
    PartnerCampaign,
    PeriodComparison,
    PeriodStats,
    partner_campaigns,
)
from subsvc_referrals.api import referral_settings

from subsvc.api import HTTPError, Router, rubles
from subsvc.auth.principal import Principal
from subsvc.db import utcnow
from subsvc_partners import notices, programme, web_stats, withdrawals
from subsvc_partners.config import partner_config
from subsvc_partners.models import PartnerApplication, WithdrawalRequest
from subsvc_partners.money import rub, standing
from subsvc_partners.people import period_starts
from subsvc_partners.risk import level
from subsvc_partners.schemas import (
    PartnerApplicationInfo,
    PartnerApplicationRequest,
    PartnerCampaignDetailedStats,
    PartnerCampaignInfo,
    PartnerStatusResponse,
    WithdrawalBalanceResponse,
    WithdrawalCreateRequest,
    WithdrawalCreateResponse,
    WithdrawalItemResponse,
    WithdrawalListResponse,
)
from subsvc_partners.settings import PartnersSettings
from subsvc_partners.web_routes import full_name

partner = Router(area="cabinet", tag="Cabinet Partner")
withdrawal = Router(area="cabinet", tag="Cabinet Withdrawal")
PARTNER, WITHDRAWAL = "/cabinet/referral/partner", "/cabinet/referral/withdrawal"
PARTNER_REQUIRED = "Partner status required"
CAMPAIGN_NOT_YOURS = "Campaign not found or not assigned to you"
CHART_DAYS, COMPARE_DAYS = 30, 7


def application_info(application: PartnerApplication) -> PartnerApplicationInfo:
    return PartnerApplicationInfo.model_validate(application, from_attributes=True)


def campaign_info(campaign: PartnerCampaign, figures: dict[int, tuple[int, int]]) -> PartnerCampaignInfo:
    referrals, earnings = figures.get(campaign.id, (0, 0))
    return PartnerCampaignInfo(
        id=campaign.id,
        name=campaign.name,
        start_parameter=campaign.start_parameter,
        bonus_type=campaign.bonus_type,
        balance_bonus_kopeks=campaign.balance_bonus_kopeks,
        subscription_duration_days=campaign.subscription_duration_days,
        subscription_traffic_gb=campaign.subscription_traffic_gb,
        registrations_count=campaign.registrations,
        referrals_count=referrals,
        earnings_kopeks=earnings,
    )


@partner.get(f"{PARTNER}/status", summary="Get Partner Status")
async def get_partner_status(
    request: Request, session: AsyncSession, principal: Principal
) -> PartnerStatusResponse:
    """My partner status, commission percent and latest application."""
    row = await programme.partner_of(session, principal.id)
    status = row.status if row is not None else programme.NONE
    percent = row.commission_percent if row is not None else None
    if percent is None and status == programme.APPROVED:
        percent = (await referral_settings(request.app)).commission_percent
    latest = await programme.latest_application(session, principal.id)
    mine = await partner_campaigns(session, principal.id) if status == programme.APPROVED else []
    figures = await web_stats.campaign_figures(session, principal.id, [c.id for c in mine])
    return PartnerStatusResponse(
        partner_status=status,
        commission_percent=percent,
        latest_application=application_info(latest) if latest is not None else None,
        campaigns=[campaign_info(c, figures) for c in mine],
    )


@partner.post(
    f"{PARTNER}/apply", summary="Apply For Partner", responses={400: "Already a partner, or pending"}
)
async def apply_for_partner(
    request: Request, session: AsyncSession, principal: Principal, payload: PartnerApplicationRequest
) -> PartnerApplicationInfo:
    """Apply to the partner programme (one pending application at a time); the administrators
    are told."""
    application = await programme.apply(session, principal.id, payload.model_dump())
    company = f" ({application.company_name})" if application.company_name else ""
    notices.to_admins(
        request.app,
        session,
        f"🤝 Заявка на партнёрство #{application.id} от пользователя {principal.id}{company}",
    )
    return application_info(application)


@partner.get(
    f"{PARTNER}/campaigns/{{campaign_id}}/stats",
    summary="Get Campaign Stats",
    responses={403: PARTNER_REQUIRED, 404: CAMPAIGN_NOT_YOURS},
)
async def get_campaign_stats(
    session: AsyncSession, principal: Principal, campaign_id: int
) -> PartnerCampaignDetailedStats:
    """Statistics of a campaign assigned to me: its registrations, my referees among them and
    what I earned through them (all time, today, 7 and 30 days, per day of the last 30), the
    last 7 days against the 7 before, the referees who earned me most."""
    if await programme.status_of(session, principal.id) != programme.APPROVED:
        raise HTTPError(403, PARTNER_REQUIRED)
    found = await partner_campaigns(session, principal.id, campaign_id)
    if not found:
        raise HTTPError(404, CAMPAIGN_NOT_YOURS)
    me, campaign = principal.id, found[0]
    referrals, earnings = (await web_stats.campaign_figures(session, me, [campaign.id]))[campaign.id]
    starts = period_starts()
    now = utcnow()
    split, start = now - timedelta(days=COMPARE_DAYS), now - timedelta(days=2 * COMPARE_DAYS)
    periods = [
        PeriodStats(
            days=COMPARE_DAYS,
            referrals_count=await web_stats.referees_between(session, me, since, until, campaign.id),
            earnings_kopeks=await web_stats.earned_between(session, me, since, until, campaign.id),
        )
        for since, until in ((split, now), (start, split))
    ]
    current, previous = periods
    return PartnerCampaignDetailedStats(
        campaign_id=campaign.id,
        campaign_name=campaign.name,
        registrations_count=campaign.registrations,
        referrals_count=referrals,
        earnings_kopeks=earnings,
        conversion_rate=round(referrals / campaign.registrations * 100, 2) if campaign.registrations else 0.0,
        **{
            f"earnings_{name}": await web_stats.earned_between(session, me, starts[name], None, campaign.id)
            for name in ("today", "week", "month")
        },
        daily_stats=[
            DailyStatItem.model_validate(day)
            for day in await web_stats.daily(session, me, CHART_DAYS, campaign.id)
        ],
        period_comparison=PeriodComparison.of(current, previous),
        top_referrals=[
            CampaignReferralItem(
                id=user.id or 0,
                full_name=full_name(user),
                created_at=user.created_at,
                has_paid=user.has_made_first_topup,
                is_active=user.status == "active",
                total_earnings_kopeks=total,
            )
            for user, total in await web_stats.top_referrals(session, me, campaign.id)
        ],
    )


async def _enabled(request: Request) -> bool:
    config = await partner_config(request.app)
    return config.withdrawal_enabled and (await referral_settings(request.app)).enabled


@withdrawal.get(f"{WITHDRAWAL}/balance", summary="Get Withdrawal Balance")
async def get_withdrawal_balance(
    request: Request, session: AsyncSession, principal: Principal
) -> WithdrawalBalanceResponse:
    """What I earned, what requests hold, what I may withdraw, and whether I may ask now."""
    config = await partner_config(request.app)
    only_referral = PartnersSettings.of(request.app).REFERRAL_WITHDRAWAL_ONLY_REFERRAL_BALANCE
    enabled = await _enabled(request)
    money = await standing(session, principal.id)
    reason = await withdrawals.refusal(session, request.app, config, principal.id, money, enabled)
    return WithdrawalBalanceResponse(
        total_earned=money.total_earned,
        referral_spent=money.referral_spent,
        withdrawn=money.withdrawn,
        pending=money.pending,
        available_referral=money.available_referral,
        available_total=money.available_referral if only_referral else money.balance,
        only_referral_mode=only_referral,
        min_amount_kopeks=config.withdrawal_min_amount_kopeks,
        is_withdrawal_enabled=enabled,
        can_request=reason is None,
        cannot_request_reason=reason,
        requisites_text=config.withdrawal_requisites_text,
    )


@withdrawal.post(f"{WITHDRAWAL}/create", summary="Create Withdrawal", responses={400: "Refused (the reason)"})
async def create_withdrawal(
    request: Request, session: AsyncSession, principal: Principal, payload: WithdrawalCreateRequest
) -> WithdrawalCreateResponse:
    """Ask to withdraw: the amount leaves the balance at once (reserved) until the request is
    paid out, or comes back if it is rejected or cancelled."""
    created = await withdrawals.create(
        session,
        request.app,
        principal.id,
        payload.amount_kopeks,
        payload.payment_details,
        enabled=await _enabled(request),
    )
    assert created.id is not None
    notices.to_admins(
        request.app,
        session,
        f"💸 Заявка на вывод #{created.id}: {rub(created.amount_kopeks)} ₽ от пользователя {principal.id}, "
        f"риск {created.risk_score} ({level(created.risk_score)})",
    )
    return WithdrawalCreateResponse(id=created.id, amount_kopeks=created.amount_kopeks, status=created.status)


def item(row: WithdrawalRequest) -> WithdrawalItemResponse:
    assert row.id is not None
    return WithdrawalItemResponse(
        id=row.id,
        amount_kopeks=row.amount_kopeks,
        amount_rubles=rubles(row.amount_kopeks),
        status=row.status,
        payment_details=row.payment_details,
        admin_comment=row.admin_comment,
        created_at=row.created_at,
        processed_at=row.processed_at,
    )


@withdrawal.get(f"{WITHDRAWAL}/history", summary="Get Withdrawal History")
async def get_withdrawal_history(session: AsyncSession, principal: Principal) -> WithdrawalListResponse:
    """My requests, newest first."""
    mine = col(WithdrawalRequest.user_id) == principal.id
    rows = (
        await session.exec(select(WithdrawalRequest).where(mine).order_by(col(WithdrawalRequest.id).desc()))
    ).all()
    total = (await session.exec(select(func.count()).select_from(WithdrawalRequest).where(mine))).one()
    return WithdrawalListResponse(items=[item(r) for r in rows], total=total)


@withdrawal.post(
    f"{WITHDRAWAL}/{{request_id}}/cancel",
    summary="Cancel Withdrawal",
    response_model=dict[str, bool],
    responses={400: withdrawals.ONLY_PENDING_CANCEL, 404: withdrawals.NOT_FOUND},
)
async def cancel_withdrawal(
    request: Request, session: AsyncSession, principal: Principal, request_id: int
) -> dict[str, bool]:
    """Cancel my pending request; its money comes back to the balance."""
    await withdrawals.cancel(session, request.app, principal.id, request_id)
    return {"success": True}

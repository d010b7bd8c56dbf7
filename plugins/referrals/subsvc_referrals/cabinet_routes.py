"""`/cabinet/referral` (tag Cabinet Referral): the signed-in user's referral page."""

from __future__ import annotations

from typing import Annotated

from sqlalchemy import exists, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User, get_user

from subsvc.api import Query, Router
from subsvc.auth.principal import Principal
from subsvc_referrals.config import ReferralConfig
from subsvc_referrals.earnings import earned_totals, individual_percent
from subsvc_referrals.models import ReferralEarning
from subsvc_referrals.schemas import (
    ReferralEarningResponse,
    ReferralEarningsListResponse,
    ReferralInfoResponse,
    ReferralItemResponse,
    ReferralListResponse,
    ReferralTermsResponse,
)
from subsvc_referrals.settings import ReferralSettings
from subsvc_referrals.store import referral_settings
from subsvc_referrals.summaries import (
    active_referral_count,
    campaigns,
    pages,
    referral_count,
    withdrawal_totals,
)

router = Router(area="cabinet", tag="Cabinet Referral")
Page = Annotated[int, Query(ge=1, description="Page number")]
PerPage = Annotated[int, Query(ge=1, le=100, description="Items per page")]


def rubles(kopeks: int) -> float:
    return kopeks / 100


def links(settings: ReferralSettings, code: str) -> tuple[str, str]:
    """The cabinet's and the bot's referral links of ``code`` (empty without a code)."""
    if not code:
        return "", ""
    cabinet = f"{(settings.CABINET_URL or '').rstrip('/')}/?ref={code}"
    bot = f"https://t.me/{settings.BOT_USERNAME.lstrip('@')}?start={code}" if settings.BOT_USERNAME else ""
    return cabinet, bot


@router.get("/cabinet/referral", summary="Get Referral Info", responses={404: "User not found"})
async def get_referral_info(
    request: Request, session: AsyncSession, principal: Principal
) -> ReferralInfoResponse:
    """Get referral program info for current user: code and links, referees, earnings, the
    percent and what may be withdrawn (``min(balance, earned - withdrawn - pending)``)."""
    user = await get_user(session, principal.id)
    config = await referral_settings(request.app)
    earned = (await earned_totals(session, [principal.id]))[principal.id]
    withdrawn, pending = await withdrawal_totals(request.app, session, principal.id)
    available = min(user.balance_kopeks, max(0, earned - withdrawn - pending))
    percent = await individual_percent(request.app, session, principal.id)
    code = user.referral_code or ""
    cabinet_link, bot_link = links(ReferralSettings.of(request.app), code)
    return ReferralInfoResponse(
        referral_code=code,
        referral_link=cabinet_link,
        bot_referral_link=bot_link,
        total_referrals=await referral_count(session, principal.id),
        active_referrals=await active_referral_count(session, principal.id),
        total_earnings_kopeks=earned,
        total_earnings_rubles=rubles(earned),
        commission_percent=config.commission_percent if percent is None else percent,
        available_balance_kopeks=available,
        available_balance_rubles=rubles(available),
        withdrawn_kopeks=withdrawn,
    )


@router.get("/cabinet/referral/list", summary="Get Referral List")
async def get_referral_list(
    session: AsyncSession, principal: Principal, page: Page = 1, per_page: PerPage = 20
) -> ReferralListResponse:
    """Get list of invited users, newest first."""
    total = int(
        (await session.exec(select(func.count()).where(col(User.referred_by_id) == principal.id))).one()
    )
    has_subscription = exists().where(col(Subscription.user_id) == col(User.id))
    query = (
        select(User, has_subscription.label("has_subscription"))
        .where(col(User.referred_by_id) == principal.id)
        .order_by(col(User.created_at).desc(), col(User.id).desc())
        .offset((page - 1) * per_page)
        .limit(per_page)
    )
    items = [
        ReferralItemResponse(
            id=user.id or 0,
            username=user.username,
            first_name=user.first_name,
            created_at=user.created_at,
            has_subscription=bool(subscribed),
            has_paid=user.has_made_first_topup,
        )
        for user, subscribed in (await session.exec(query)).all()
    ]
    return ReferralListResponse(
        items=items, total=total, page=page, per_page=per_page, pages=pages(total, per_page)
    )


@router.get("/cabinet/referral/earnings", summary="Get Referral Earnings")
async def get_referral_earnings(
    request: Request, session: AsyncSession, principal: Principal, page: Page = 1, per_page: PerPage = 20
) -> ReferralEarningsListResponse:
    """Get referral earnings history, newest first, with the referee and the campaign."""
    mine = col(ReferralEarning.user_id) == principal.id
    count, total_amount = (
        await session.exec(
            select(func.count(), func.coalesce(func.sum(ReferralEarning.amount_kopeks), 0)).where(mine)
        )
    ).one()
    query = (
        select(ReferralEarning, User.username, User.first_name)
        .outerjoin(User, col(User.id) == col(ReferralEarning.referral_id))
        .where(mine)
        .order_by(col(ReferralEarning.created_at).desc(), col(ReferralEarning.id).desc())
        .offset((page - 1) * per_page)
        .limit(per_page)
    )
    rows = (await session.exec(query)).all()
    campaign_ids = sorted({earning.campaign_id for earning, _, _ in rows if earning.campaign_id is not None})
    names = (
        {c.id: c.name for c in await campaigns(request.app, session, campaign_ids)} if campaign_ids else {}
    )
    items = [
        ReferralEarningResponse(
            id=earning.id or 0,
            amount_kopeks=earning.amount_kopeks,
            amount_rubles=rubles(earning.amount_kopeks),
            reason=earning.reason,
            referral_username=username,
            referral_first_name=first_name,
            campaign_name=names.get(earning.campaign_id) if earning.campaign_id is not None else None,
            created_at=earning.created_at,
        )
        for earning, username, first_name in rows
    ]
    return ReferralEarningsListResponse(
        items=items,
        total=int(count),
        total_amount_kopeks=int(total_amount),
        total_amount_rubles=rubles(int(total_amount)),
        page=page,
        per_page=per_page,
        pages=pages(int(count), per_page),
    )


def terms(config: ReferralConfig) -> ReferralTermsResponse:
    return ReferralTermsResponse(
        is_enabled=config.enabled,
        commission_percent=config.commission_percent,
        first_payment_commission_percent=config.first_payment_commission_percent,
        recurring_commission_tiers=config.recurring_commission_tiers,
        minimum_topup_kopeks=config.minimum_topup_kopeks,
        minimum_topup_rubles=rubles(config.minimum_topup_kopeks),
        first_topup_bonus_kopeks=config.first_topup_bonus_kopeks,
        first_topup_bonus_rubles=rubles(config.first_topup_bonus_kopeks),
        inviter_bonus_kopeks=config.inviter_bonus_kopeks,
        inviter_bonus_rubles=rubles(config.inviter_bonus_kopeks),
        max_commission_payments=config.max_commission_payments,
    )


@router.get("/cabinet/referral/terms", public=True, summary="Get Referral Terms")
async def get_referral_terms(request: Request) -> ReferralTermsResponse:
    """Get referral program terms (public)."""
    return terms(await referral_settings(request.app))

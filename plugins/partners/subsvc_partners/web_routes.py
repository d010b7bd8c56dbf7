"""Web API "partners" (`/partners/...`, API token): referrers (users with a referral code or a
referee), their referees and statistics, and the individual commission percent. A path's
``user_id`` is a messenger id first, else an internal id."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_billing.api import DEPOSIT, Transaction
from subsvc_campaigns.api import PeriodChange
from subsvc_referrals.api import ReferralEarning, referral_settings
from subsvc_users.api import User, filters, get_user

from subsvc.api import BigInt, Offset, Query, Router, rubles
from subsvc.db import page_of, utcnow
from subsvc_partners import web_stats
from subsvc_partners.models import Partner
from subsvc_partners.people import earnings_since, period_starts, referee_counts, users_by_id
from subsvc_partners.programme import NONE
from subsvc_partners.web_schemas import (
    DailyStatsResponse,
    EarningsByPeriod,
    GlobalPartnerStats,
    NamedUser,
    PartnerReferralCommissionUpdate,
    PartnerReferralItem,
    PartnerReferralList,
    PartnerReferrerDetail,
    PartnerReferrerItem,
    PartnerReferrerListResponse,
    PeriodComparisonResponse,
    ReferrerDetailedStats,
    TopReferralItem,
    TopReferralsResponse,
    TopReferrerItem,
    TopReferrersResponse,
)

router = Router(area="web", tag="partners")
NEWEST_USERS = [col(User.created_at).desc(), col(User.id).desc()]
EARNINGS: sa.Table = ReferralEarning.__table__  # type: ignore[attr-defined]
NOT_FOUND = {404: "User not found"}
Days = Annotated[int, Query(ge=1, le=365)]
Limit200 = Annotated[int, Query(ge=1, le=200)]
Top = Annotated[int, Query(ge=1, le=100)]


def full_name(user: User) -> str:
    name = " ".join(part for part in (user.first_name, user.last_name) if part)
    return name or (f"@{user.username}" if user.username else f"ID{user.messenger_id or user.id}")


def names(user: User) -> dict[str, Any]:
    """A :class:`NamedUser`'s fields of ``user``."""
    return NamedUser.model_validate(user, from_attributes=True).model_dump()


async def _individual(session: AsyncSession, ids: list[int]) -> dict[int, int | None]:
    if not ids:
        return {}
    rows = (
        await session.exec(
            select(Partner.user_id, Partner.commission_percent).where(col(Partner.user_id).in_(ids))
        )
    ).all()
    return {int(u): p for u, p in rows}


async def referrer_items(
    request: Request, session: AsyncSession, users: list[User]
) -> list[PartnerReferrerItem]:
    ids = [u.id for u in users if u.id is not None]
    counts, individual = await referee_counts(session, ids), await _individual(session, ids)
    total, month = (
        await earnings_since(session, ids),
        await earnings_since(session, ids, period_starts()["month"]),
    )
    default = (await referral_settings(request.app)).commission_percent
    items = []
    for user in users:
        assert user.id is not None
        own = individual.get(user.id)
        items.append(
            PartnerReferrerItem(
                **names(user),
                referral_code=user.referral_code,
                referral_commission_percent=own,
                effective_referral_commission_percent=default if own is None else own,
                invited_count=counts.get(user.id, (0, 0, 0))[0],
                active_referrals=counts.get(user.id, (0, 0, 0))[2],
                total_earned_kopeks=total.get(user.id, 0),
                total_earned_rubles=rubles(total.get(user.id, 0)),
                month_earned_kopeks=month.get(user.id, 0),
                month_earned_rubles=rubles(month.get(user.id, 0)),
                created_at=user.created_at,
                last_activity=user.last_activity,
            )
        )
    return items


def _is_referrer() -> sa.ColumnElement[bool]:
    referee = sa.orm.aliased(User)
    has_referee = sa.exists().where(col(referee.referred_by_id) == col(User.id))
    return sa.or_(col(User.referral_code).is_not(None), has_referee)


@router.get("/partners/referrers", summary="List Referrers")
async def list_referrers(
    request: Request,
    session: AsyncSession,
    limit: Limit200 = 50,
    offset: Offset = 0,
    search: Annotated[str | None, Query()] = None,
) -> PartnerReferrerListResponse:
    """Users with a referral code or a referee, newest first."""
    where = [_is_referrer(), *filters(search=(search or "").strip() or None)]
    users, total = await page_of(session, User, where, NEWEST_USERS, offset, limit)
    return PartnerReferrerListResponse(
        items=await referrer_items(request, session, users), total=total, limit=limit, offset=offset
    )


@router.get("/partners/referrers/{user_id}", summary="Get Referrer Detail", responses=NOT_FOUND)
async def get_referrer_detail(
    request: Request, session: AsyncSession, user_id: BigInt, limit: Limit200 = 50, offset: Offset = 0
) -> PartnerReferrerDetail:
    """A referrer and a page of their referees."""
    user = await get_user(session, user_id)
    assert user.id is not None
    mine = [col(User.referred_by_id) == user.id]
    referees, total = await page_of(session, User, mine, NEWEST_USERS, offset, limit)
    ids = [r.id for r in referees if r.id is not None]
    earned = await web_stats.earned_from(session, user.id, ids)
    topups: dict[int, int] = {}
    if ids:
        rows = await session.exec(
            select(Transaction.user_id, sa.func.count())
            .where(
                col(Transaction.user_id).in_(ids),
                col(Transaction.type) == DEPOSIT,
                col(Transaction.payment_method).is_not(None),
            )
            .group_by(col(Transaction.user_id))
        )
        topups = {int(u): int(n) for u, n in rows.all()}
    now = utcnow()
    items = [
        PartnerReferralItem(
            id=r.id,
            messenger_id=r.messenger_id,
            full_name=full_name(r),
            username=r.username,
            created_at=r.created_at,
            last_activity=r.last_activity,
            has_made_first_topup=r.has_made_first_topup,
            balance_kopeks=r.balance_kopeks,
            balance_rubles=rubles(r.balance_kopeks),
            total_earned_kopeks=earned.get(r.id, 0),
            total_earned_rubles=rubles(earned.get(r.id, 0)),
            topups_count=topups.get(r.id, 0),
            days_since_registration=(now - r.created_at).days,
            days_since_activity=(now - r.last_activity).days if r.last_activity else None,
            status=r.status,
        )
        for r in referees
        if r.id is not None
    ]
    pages = (total + limit - 1) // limit
    return PartnerReferrerDetail(
        referrer=(await referrer_items(request, session, [user]))[0],
        referrals=PartnerReferralList(
            items=items,
            total=total,
            limit=limit,
            offset=offset,
            has_next=offset + limit < total,
            has_prev=offset > 0,
            current_page=offset // limit + 1,
            total_pages=pages,
        ),
    )


@router.patch(
    "/partners/referrers/{user_id}/commission", summary="Update Referrer Commission", responses=NOT_FOUND
)
async def update_referrer_commission(
    request: Request, session: AsyncSession, user_id: BigInt, payload: PartnerReferralCommissionUpdate
) -> PartnerReferrerItem:
    """Set (0..100) or clear (null: the global percent) a user's individual commission percent;
    the partner status is not changed."""
    user = await get_user(session, user_id)
    assert user.id is not None
    percent = payload.referral_commission_percent
    changed = await session.exec(
        sa.update(Partner)
        .where(col(Partner.user_id) == user.id)
        .values(commission_percent=percent, updated_at=utcnow())
    )
    if not changed.rowcount and percent is not None:
        session.add(Partner(user_id=user.id, status=NONE, commission_percent=percent))
        await session.flush()
    return (await referrer_items(request, session, [user]))[0]


@router.get("/partners/stats", summary="Get Global Partner Stats")
async def get_global_partner_stats(session: AsyncSession, days: Days = 30) -> GlobalPartnerStats:
    """The programme's totals: referrers, referees, paying referees, payouts, new referees."""
    starts = period_starts()
    referrers = (
        await session.exec(
            select(sa.func.count(sa.distinct(col(User.referred_by_id)))).where(
                col(User.referred_by_id).is_not(None)
            )
        )
    ).one()
    total, paid = (
        await session.exec(
            select(
                sa.func.count(),
                sa.func.coalesce(sa.func.sum(sa.case((col(User.has_made_first_topup), 1), else_=0)), 0),
            ).where(col(User.referred_by_id).is_not(None))
        )
    ).one()
    payouts = {name: await web_stats.earned_between(session, None, since) for name, since in starts.items()}
    all_time = await web_stats.earned_between(session, None, None)
    return GlobalPartnerStats.model_validate(
        {
            "summary": {
                "total_referrers": referrers,
                "total_referrals": total,
                "paid_referrals": paid,
                "conversion_rate_percent": round(paid / total * 100, 2) if total else 0.0,
                "avg_earnings_per_referral_kopeks": round(all_time / paid, 2) if paid else 0.0,
            },
            "payouts": {"all_time_kopeks": all_time, **{f"{k}_kopeks": v for k, v in payouts.items()}},
            "new_referrals": {
                k: await web_stats.referees_between(session, None, starts[k])
                for k in ("today", "week", "month")
            },
        }
    )


@router.get("/partners/stats/daily", summary="Get Global Daily Stats")
async def get_global_daily_stats(session: AsyncSession, days: Days = 30) -> DailyStatsResponse:
    """New referees and earnings per day."""
    return DailyStatsResponse.model_validate(
        {"items": await web_stats.daily(session, None, days), "days": days}
    )


@router.get("/partners/stats/top-referrers", summary="Get Top Referrers")
async def get_top_referrers(
    session: AsyncSession, limit: Top = 10, days: Annotated[int | None, Query(ge=1, le=365)] = None
) -> TopReferrersResponse:
    """Referrers ranked by earnings (within the last ``days`` when given)."""
    total = sa.func.sum(EARNINGS.c.amount_kopeks)
    query = (
        select(EARNINGS.c.user_id, total.label("total"))
        .group_by(EARNINGS.c.user_id)
        .order_by(total.desc(), EARNINGS.c.user_id)
        .limit(limit)
    )
    if days is not None:
        query = query.where(EARNINGS.c.created_at >= utcnow() - timedelta(days=days))
    ranked = [(int(u), int(t or 0)) for u, t in (await session.exec(query)).all()]
    ids = [u for u, _ in ranked]
    users = await users_by_id(session, ids)
    counts = await referee_counts(session, ids)
    items = [
        TopReferrerItem(
            **names(users[uid]),
            full_name=full_name(users[uid]),
            referral_code=users[uid].referral_code,
            referrals_count=counts.get(uid, (0, 0, 0))[0],
            total_earnings_kopeks=amount,
        )
        for uid, amount in ranked
        if uid in users
    ]
    return TopReferrersResponse(items=items, days=days)


@router.get("/partners/referrers/{user_id}/stats", summary="Get Referrer Detailed Stats", responses=NOT_FOUND)
async def get_referrer_detailed_stats(session: AsyncSession, user_id: BigInt) -> ReferrerDetailedStats:
    """A referrer's referees and earnings, by period."""
    user = await get_user(session, user_id)
    assert user.id is not None
    total, paid, active = (await referee_counts(session, [user.id])).get(user.id, (0, 0, 0))
    starts = period_starts()
    all_time = await web_stats.earned_between(session, user.id, None)
    earnings: dict[str, Any] = {"all_time_kopeks": all_time}
    counts: dict[str, Any] = {"all_time": total}
    for name, since in starts.items():
        earnings[f"{name}_kopeks"] = await web_stats.earned_between(session, user.id, since)
        counts[name] = await web_stats.referees_between(session, user.id, since)
    return ReferrerDetailedStats.model_validate(
        {
            "user_id": user.id,
            "summary": {
                "total_referrals": total,
                "paid_referrals": paid,
                "active_referrals": active,
                "conversion_to_paid_percent": round(paid / total * 100, 2) if total else 0.0,
                "conversion_to_active_percent": round(active / total * 100, 2) if total else 0.0,
                "avg_earnings_per_referral_kopeks": round(all_time / total, 2) if total else 0.0,
            },
            "earnings": EarningsByPeriod.model_validate(earnings),
            "referrals_count": counts,
        }
    )


@router.get(
    "/partners/referrers/{user_id}/stats/daily", summary="Get Referrer Daily Stats", responses=NOT_FOUND
)
async def get_referrer_daily_stats(
    session: AsyncSession, user_id: BigInt, days: Days = 30
) -> DailyStatsResponse:
    """A referrer's new referees and earnings per day."""
    user = await get_user(session, user_id)
    return DailyStatsResponse.model_validate(
        {"items": await web_stats.daily(session, user.id, days), "days": days, "user_id": user.id}
    )


@router.get(
    "/partners/referrers/{user_id}/stats/top-referrals",
    summary="Get Referrer Top Referrals",
    responses=NOT_FOUND,
)
async def get_referrer_top_referrals(
    session: AsyncSession, user_id: BigInt, limit: Top = 10
) -> TopReferralsResponse:
    """A referrer's referees ranked by what they brought."""
    user = await get_user(session, user_id)
    assert user.id is not None
    rows = await web_stats.top_referrals(session, user.id, limit=limit)
    items = [
        TopReferralItem(
            **names(r),
            full_name=full_name(r),
            created_at=r.created_at,
            has_made_first_topup=r.has_made_first_topup,
            is_active=r.status == "active",
            total_earnings_kopeks=int(total),
        )
        for r, total in rows
        if r.id is not None
    ]
    return TopReferralsResponse(items=items, user_id=user.id)


@router.get(
    "/partners/referrers/{user_id}/stats/compare",
    summary="Get Referrer Period Comparison",
    responses=NOT_FOUND,
)
async def get_referrer_period_comparison(
    session: AsyncSession, user_id: BigInt, current_days: Days = 7, previous_days: Days = 7
) -> PeriodComparisonResponse:
    """The last ``current_days`` against the ``previous_days`` before them."""
    user = await get_user(session, user_id)
    assert user.id is not None
    now = utcnow()
    split = now - timedelta(days=current_days)
    start = split - timedelta(days=previous_days)
    periods: list[dict[str, Any]] = []
    for days, since, until in ((current_days, split, now), (previous_days, start, split)):
        periods.append(
            {
                "days": days,
                "start": since.isoformat(),
                "end": until.isoformat(),
                "referrals_count": await web_stats.referees_between(session, user.id, since, until),
                "earnings_kopeks": await web_stats.earned_between(session, user.id, since, until),
            }
        )
    current, previous = periods
    changes = {"referrals": "referrals_count", "earnings": "earnings_kopeks"}
    return PeriodComparisonResponse.model_validate(
        {
            "current_period": current,
            "previous_period": previous,
            "change": {
                name: PeriodChange.between(current[key], previous[key]).model_dump()
                for name, key in changes.items()
            },
            "user_id": user.id,
        }
    )

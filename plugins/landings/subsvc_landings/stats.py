"""A landing page's statistics and purchase list, by aggregate queries."""

from __future__ import annotations

from typing import Any

from sqlalchemy import case, func
from sqlalchemy import select as sa_select
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import page_of
from subsvc_landings.models import DELIVERED, PAID, PENDING_ACTIVATION, GuestPurchase
from subsvc_landings.schemas import (
    LandingDailyStat,
    LandingPaymentMethodStat,
    LandingPurchaseItem,
    LandingPurchaseListResponse,
    LandingSourceStat,
    LandingStatsResponse,
    LandingTariffStat,
)

SUCCESSFUL = (PAID, DELIVERED, PENDING_ACTIVATION)
P = GuestPurchase


def _ok() -> Any:
    return col(P.status).in_(SUCCESSFUL)


async def _grouped(session: AsyncSession, landing_id: int, *keys: Any) -> list[Any]:
    query = (
        sa_select(*keys, func.count(), func.coalesce(func.sum(col(P.amount_kopeks)), 0))
        .where(col(P.landing_id) == landing_id, _ok())
        .group_by(*keys)
        .order_by(func.count().desc())
    )
    return list((await session.exec(query)).all())  # type: ignore[call-overload]


async def landing_stats(session: AsyncSession, landing_id: int) -> LandingStatsResponse:
    ok = _ok()
    totals = sa_select(
        func.count(),
        func.coalesce(func.sum(case((ok, 1), else_=0)), 0),
        func.coalesce(func.sum(case((ok, col(P.amount_kopeks)), else_=0)), 0),
        func.coalesce(func.sum(case((ok & col(P.is_gift), 1), else_=0)), 0),
        func.coalesce(func.sum(case((col(P.is_gift) & (col(P.status) == DELIVERED), 1), else_=0)), 0),
    ).where(col(P.landing_id) == landing_id)
    created, successful, revenue, gifts, claimed = (await session.exec(totals)).one()  # type: ignore[call-overload]
    day = func.date(col(P.created_at)).label("day")
    daily = (
        sa_select(
            day,
            func.count(),
            func.coalesce(func.sum(case((ok, 1), else_=0)), 0),
            func.coalesce(func.sum(case((ok, col(P.amount_kopeks)), else_=0)), 0),
            func.coalesce(func.sum(case((ok & col(P.is_gift), 1), else_=0)), 0),
        )
        .where(col(P.landing_id) == landing_id)
        .group_by(day)
        .order_by(day)
    )
    days = [
        LandingDailyStat(date=str(d), created=c, purchases=p, revenue_kopeks=r, gifts=g)
        for d, c, p, r, g in (await session.exec(daily)).all()  # type: ignore[call-overload]
    ]
    tariffs = await _grouped(session, landing_id, col(P.tariff_id), col(P.tariff_name))
    methods = await _grouped(session, landing_id, col(P.payment_method))
    sources = await _grouped(session, landing_id, col(P.source))
    return LandingStatsResponse(
        total_purchases=successful,
        total_revenue_kopeks=revenue,
        total_gifts=gifts,
        total_gifts_claimed=claimed,
        total_regular=successful - gifts,
        avg_purchase_kopeks=revenue // successful if successful else 0,
        total_created=created,
        total_successful=successful,
        conversion_rate=round(successful * 100 / created, 2) if created else 0.0,
        daily_stats=days,
        tariff_stats=[
            LandingTariffStat(tariff_id=t, tariff_name=n or "", purchases=c, revenue_kopeks=r)
            for t, n, c, r in tariffs
        ],
        payment_method_stats=[
            LandingPaymentMethodStat(method=m or "", purchases=c, revenue_kopeks=r) for m, c, r in methods
        ],
        source_stats=[LandingSourceStat(source=s or "direct", purchases=c) for s, c, _ in sources],
    )


async def landing_purchases(
    session: AsyncSession, landing_id: int, offset: int, limit: int, status: str | None
) -> LandingPurchaseListResponse:
    where = [col(P.landing_id) == landing_id]
    if status is not None:
        where.append(col(P.status) == status)
    order = [col(P.created_at).desc(), col(P.id).desc()]
    rows, total = await page_of(session, P, where, order, offset, limit)
    return LandingPurchaseListResponse(
        items=[LandingPurchaseItem.model_validate(row, from_attributes=True) for row in rows], total=total
    )

"""The partners plugin's runtime hooks (the settings cache starts and stops with the app) and
its answers to `referrals`' extension points: a user's individual commission percent, their
withdrawal totals, the approved partners (also to `campaigns`' ``campaign_partner_ids``)."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_partners.config import CONFIG
from subsvc_partners.models import Partner
from subsvc_partners.money import APPROVED, COMPLETED, PENDING, request_sums
from subsvc_partners.programme import APPROVED as PARTNER
from subsvc_partners.programme import partner_of


@hookimpl
def startup(app: Starlette) -> None:
    CONFIG.start(app)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await CONFIG.stop(app)


@hookimpl
async def referral_commission_percent(session: AsyncSession, user_id: int) -> int | None:
    """The user's individual percent (set on approval, by an administrator, or through the Web
    API), else ``None`` (the global percent applies)."""
    row = await partner_of(session, user_id)
    return row.commission_percent if row is not None else None


@hookimpl
async def referral_withdrawal_totals(session: AsyncSession, user_id: int) -> tuple[int, int]:
    """``(withdrawn, pending)``: kopeks of the user's approved or completed requests, and of
    the pending ones."""
    sums = await request_sums(session, user_id)
    return sums.get(APPROVED, 0) + sums.get(COMPLETED, 0), sums.get(PENDING, 0)


@hookimpl
async def referral_partner_ids(session: AsyncSession) -> set[int]:
    """The approved partners."""
    return set((await session.exec(select(Partner.user_id).where(col(Partner.status) == PARTNER))).all())


@hookimpl
async def campaign_partner_ids(session: AsyncSession) -> set[int]:
    """The approved partners, for the campaign editor (campaigns' extension point)."""
    return await referral_partner_ids(session)

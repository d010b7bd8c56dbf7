"""A campaign's partner: the conditional (race-free) assignment and the campaigns of a partner
with their registrations, for the partners plugin."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from types import EllipsisType

import sqlalchemy as sa
from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db.types import utcnow
from subsvc_campaigns.models import Campaign, CampaignRegistration


@dataclass(frozen=True)
class PartnerCampaign:
    """A campaign assigned to a partner with the users it registered."""

    id: int
    name: str
    start_parameter: str
    is_active: bool
    bonus_type: str
    balance_bonus_kopeks: int
    subscription_duration_days: int | None
    subscription_traffic_gb: int | None
    registrations: int
    created_at: datetime


async def set_campaign_partner(
    session: AsyncSession,
    campaign_id: int,
    partner_user_id: int | None,
    *,
    expected: int | EllipsisType | None = ...,
) -> bool | None:
    """Set the campaign's partner (``None``: unassign) in one conditional update.

    With ``expected`` the update happens only when the current partner is ``expected`` or
    already ``partner_user_id`` (not ``None``: assigning twice is no change). Answers ``None``
    when the campaign does not exist, ``False`` when its partner is another one, ``True`` when
    the campaign now has ``partner_user_id``."""
    query = sa.update(Campaign).where(col(Campaign.id) == campaign_id)
    if not isinstance(expected, EllipsisType):
        current = col(Campaign.partner_user_id)
        accepted = current.is_(None) if expected is None else current == expected
        if partner_user_id is not None:
            accepted = sa.or_(accepted, current == partner_user_id)
        query = query.where(accepted)
    done = await session.exec(query.values(partner_user_id=partner_user_id, updated_at=utcnow()))
    if done.rowcount:
        return True
    return None if await session.get(Campaign, campaign_id) is None else False


async def unassign_partner(session: AsyncSession, partner_user_id: int) -> int:
    """Unassign every campaign of a partner (a revoked partner); answers how many."""
    query = sa.update(Campaign).where(col(Campaign.partner_user_id) == partner_user_id)
    done = await session.exec(query.values(partner_user_id=None, updated_at=utcnow()))
    return int(done.rowcount or 0)


async def partner_campaigns(
    session: AsyncSession, partner_user_id: int, campaign_id: int | None = None
) -> list[PartnerCampaign]:
    """The campaigns of a partner (only ``campaign_id`` when given), oldest first, each with its
    registrations counted in SQL."""
    registered = (
        select(CampaignRegistration.campaign_id, func.count().label("n"))
        .group_by(col(CampaignRegistration.campaign_id))
        .subquery()
    )
    query = (
        select(Campaign, func.coalesce(registered.c.n, 0))
        .outerjoin(registered, registered.c.campaign_id == col(Campaign.id))
        .where(col(Campaign.partner_user_id) == partner_user_id)
        .order_by(col(Campaign.id))
    )
    if campaign_id is not None:
        query = query.where(col(Campaign.id) == campaign_id)
    rows = (await session.exec(query)).all()
    return [
        PartnerCampaign(
            id=c.id or 0,
            name=c.name,
            start_parameter=c.start_parameter,
            is_active=c.is_active,
            bonus_type=c.bonus_type,
            balance_bonus_kopeks=c.balance_bonus_kopeks,
            subscription_duration_days=c.subscription_duration_days,
            subscription_traffic_gb=c.subscription_traffic_gb,
            registrations=int(n),
            created_at=c.created_at,
        )
        for c, n in rows
    ]


async def campaign_user_ids(session: AsyncSession, campaign_id: int) -> list[int]:
    """The users a campaign registered, first registered first."""
    query = (
        select(CampaignRegistration.user_id)
        .where(col(CampaignRegistration.campaign_id) == campaign_id)
        .order_by(col(CampaignRegistration.created_at), col(CampaignRegistration.id))
    )
    return list((await session.exec(query)).all())


async def registered_campaign(session: AsyncSession, user_id: int) -> int | None:
    """The campaign that registered ``user_id`` (first touch), if any."""
    query = select(CampaignRegistration.campaign_id).where(col(CampaignRegistration.user_id) == user_id)
    return (await session.exec(query)).first()


@dataclass(frozen=True)
class NetworkCampaignView:
    """A campaign as the referrals plugin's network shows it (the shape of its
    ``NetworkCampaign``, answered without depending on it): the users are those it registered."""

    id: int
    name: str
    start_parameter: str
    is_active: bool
    user_ids: tuple[int, ...]
    partner_user_id: int | None = None


async def network_campaigns(
    session: AsyncSession, campaign_ids: Sequence[int] | None
) -> list[NetworkCampaignView]:
    """The campaigns of ``campaign_ids`` (``None``: all) with their registered users, in two
    queries."""
    query = select(Campaign).order_by(col(Campaign.id))
    if campaign_ids is not None:
        query = query.where(col(Campaign.id).in_(list(campaign_ids)))
    found = (await session.exec(query)).all()
    users: dict[int, list[int]] = {c.id or 0: [] for c in found}
    registered = (
        select(CampaignRegistration.campaign_id, CampaignRegistration.user_id)
        .where(col(CampaignRegistration.campaign_id).in_(list(users)))
        .order_by(col(CampaignRegistration.created_at), col(CampaignRegistration.id))
    )
    for campaign_id, user_id in (await session.exec(registered)).all() if users else ():
        users[campaign_id].append(user_id)
    return [
        NetworkCampaignView(
            id=c.id or 0,
            name=c.name,
            start_parameter=c.start_parameter,
            is_active=c.is_active,
            user_ids=tuple(users[c.id or 0]),
            partner_user_id=c.partner_user_id,
        )
        for c in found
    ]

"""Campaign rows as answers: the Web API's and the cabinet's shapes."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_tariffs.api import Tariff
from subsvc_users.api import User

from subsvc_campaigns.models import Campaign
from subsvc_campaigns.schemas import CampaignDetailResponse, CampaignResponse, TariffInfo
from subsvc_campaigns.settings import CampaignsSettings
from subsvc_campaigns.totals import by_campaign


async def _tariff_names(session: AsyncSession, campaigns: Sequence[Campaign]) -> dict[int, str]:
    ids = {c.tariff_id for c in campaigns if c.tariff_id is not None}
    if not ids:
        return {}
    rows = await session.exec(select(Tariff.id, Tariff.name).where(col(Tariff.id).in_(ids)))
    return {tariff_id: name for tariff_id, name in rows.all() if tariff_id is not None}


async def partner_names(session: AsyncSession, ids: set[int]) -> dict[int, str]:
    """Display names of the partner users ``ids``."""
    if not ids:
        return {}
    rows = await session.exec(select(User.id, User.first_name, User.username).where(col(User.id).in_(ids)))
    return {user_id: first or username or f"#{user_id}" for user_id, first, username in rows.all() if user_id}


async def web_views(session: AsyncSession, campaigns: Sequence[Campaign]) -> list[CampaignResponse]:
    """The Web API's campaigns, with tariff names and registration counts (two statements)."""
    names = await _tariff_names(session, campaigns)
    counts = await by_campaign(session, [c.id for c in campaigns if c.id is not None])
    return [
        CampaignResponse.model_validate(
            {
                **campaign.model_dump(),
                "balance_bonus_rubles": campaign.balance_bonus_kopeks / 100,
                "tariff_name": names.get(campaign.tariff_id) if campaign.tariff_id else None,
                "registrations_count": counts[campaign.id].registrations if campaign.id in counts else 0,
            }
        )
        for campaign in campaigns
    ]


async def detail_view(
    session: AsyncSession, settings: CampaignsSettings, campaign: Campaign
) -> CampaignDetailResponse:
    """The cabinet's campaign detail."""
    names = await _tariff_names(session, [campaign])
    partners = await partner_names(session, {campaign.partner_user_id} if campaign.partner_user_id else set())
    deep_link, web_link = settings.links(campaign.start_parameter)
    tariff = (
        TariffInfo(id=campaign.tariff_id, name=names[campaign.tariff_id])
        if campaign.tariff_id in names and campaign.tariff_id is not None
        else None
    )
    return CampaignDetailResponse.model_validate(
        {
            **campaign.model_dump(),
            "balance_bonus_rubles": campaign.balance_bonus_kopeks / 100,
            "tariff": tariff,
            "partner_name": partners.get(campaign.partner_user_id) if campaign.partner_user_id else None,
            "deep_link": deep_link,
            "web_link": web_link,
        }
    )

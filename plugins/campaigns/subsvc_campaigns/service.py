"""Campaign records: create, change, delete (one rule: a campaign with registrations is kept,
deactivate it instead), read."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_tariffs.api import find_tariff

from subsvc.db import page_of, utcnow
from subsvc.services import services
from subsvc_campaigns.models import Campaign, CampaignRegistration

NOT_FOUND = "Campaign not found"
DUPLICATE = "Campaign with this start_parameter already exists"
HAS_REGISTRATIONS = "Cannot delete campaign with {n} registrations. Deactivate it instead."


class CampaignError(Exception):
    """A rule refused the change; the message is the answer's detail."""


class CampaignMissing(CampaignError):
    """No campaign has this id."""


class DuplicateSlug(CampaignError):
    """Another campaign has this start parameter."""


async def get_campaign(session: AsyncSession, campaign_id: int) -> Campaign:
    """The campaign or :class:`CampaignMissing`."""
    found = await session.get(Campaign, campaign_id) if 0 < campaign_id < 2**31 else None
    if found is None:
        raise CampaignMissing(NOT_FOUND)
    return found


async def approved_partner_ids(app: Starlette, session: AsyncSession) -> Collection[int]:
    """The approved partners' ids (hook ``campaign_partner_ids``: none without ``partners``)."""
    return await services(app).plugins.first_result("campaign_partner_ids", session=session) or ()


async def check_references(app: Starlette, session: AsyncSession, fields: Mapping[str, Any]) -> None:
    """The cabinet's checks: a tariff bonus names an existing tariff, the partner is an
    approved one."""
    if fields.get("bonus_type") == "tariff" and not fields.get("tariff_id"):
        raise CampaignError("Tariff ID is required for tariff bonus type")
    tariff_id = fields.get("tariff_id")
    if tariff_id is not None and await find_tariff(session, tariff_id) is None:
        raise CampaignError("Tariff not found")
    partner = fields.get("partner_user_id")
    if partner is not None and partner not in await approved_partner_ids(app, session):
        raise CampaignError("Partner not found or not approved")


async def _slug_taken(session: AsyncSession, slug: str, campaign_id: int | None) -> bool:
    query = select(Campaign.id).where(col(Campaign.start_parameter) == slug)
    if campaign_id is not None:
        query = query.where(col(Campaign.id) != campaign_id)
    return (await session.exec(query)).first() is not None


async def _flush(session: AsyncSession, campaign: Campaign, duplicate: str) -> Campaign:
    try:
        async with session.begin_nested():
            session.add(campaign)
    except IntegrityError as exc:  # a concurrent write took the slug
        raise DuplicateSlug(duplicate) from exc
    await session.refresh(campaign)
    return campaign


async def create_campaign(
    session: AsyncSession, fields: Mapping[str, Any], *, created_by: int | None, duplicate: str = DUPLICATE
) -> Campaign:
    """A new campaign; :class:`DuplicateSlug` when its start parameter is taken."""
    if await _slug_taken(session, fields["start_parameter"], None):
        raise DuplicateSlug(duplicate)
    return await _flush(session, Campaign(**fields, created_by=created_by), duplicate)


async def update_campaign(
    session: AsyncSession, campaign: Campaign, fields: Mapping[str, Any], *, duplicate: str = DUPLICATE
) -> Campaign:
    """Set ``fields``; unchanged when empty."""
    if not fields:
        return campaign
    slug = fields.get("start_parameter")
    if slug is not None and await _slug_taken(session, slug, campaign.id):
        raise DuplicateSlug(duplicate)
    for name, value in fields.items():
        setattr(campaign, name, value)
    campaign.updated_at = utcnow()
    return await _flush(session, campaign, duplicate)


async def registrations_count(session: AsyncSession, campaign_id: int) -> int:
    """How many users the campaign brought."""
    query = select(func.count()).where(col(CampaignRegistration.campaign_id) == campaign_id)
    return int((await session.exec(query)).one())


async def delete_campaign(session: AsyncSession, campaign: Campaign) -> None:
    """Delete a campaign nobody registered through; one with registrations is refused (the
    attribution history stays: deactivate it instead)."""
    assert campaign.id is not None
    count = await registrations_count(session, campaign.id)
    if count:
        raise CampaignError(HAS_REGISTRATIONS.format(n=count))
    await session.delete(campaign)
    await session.flush()


async def list_campaigns(
    session: AsyncSession, *, include_inactive: bool, offset: int, limit: int
) -> tuple[list[Campaign], int]:
    """A page of campaigns (newest first) and the total."""
    where = [] if include_inactive else [col(Campaign.is_active)]
    return await page_of(session, Campaign, where, [col(Campaign.id).desc()], offset, limit)

"""Web API ``/campaigns`` (tag campaigns, API key): create, list, change, delete."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import HTTPError, Query, Router
from subsvc_campaigns import service
from subsvc_campaigns.models import Campaign
from subsvc_campaigns.schemas import (
    CampaignCreateRequest,
    CampaignListResponse,
    CampaignResponse,
    CampaignUpdateRequest,
)
from subsvc_campaigns.views import web_views

router = Router(area="web", tag="campaigns")
NOT_FOUND = {404: service.NOT_FOUND}
DUPLICATE = {400: service.DUPLICATE}


async def _one(session: AsyncSession, campaign_id: int) -> Campaign:
    try:
        return await service.get_campaign(session, campaign_id)
    except service.CampaignMissing as exc:
        raise HTTPError(404, str(exc)) from exc


async def _view(session: AsyncSession, campaign: Campaign) -> CampaignResponse:
    return (await web_views(session, [campaign]))[0]


@router.post("/campaigns", permission="campaigns:create", status_code=201, responses=DUPLICATE)
async def create_campaign_endpoint(session: AsyncSession, payload: CampaignCreateRequest) -> CampaignResponse:
    """Create a campaign (its start parameter unused)."""
    try:
        campaign = await service.create_campaign(session, payload.model_dump(), created_by=None)
    except service.DuplicateSlug as exc:
        raise HTTPError(400, str(exc)) from exc
    return await _view(session, campaign)


@router.get("/campaigns", permission="campaigns:read")
async def list_campaigns(
    session: AsyncSession,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0)] = 0,
    include_inactive: bool = True,
) -> CampaignListResponse:
    """A page of campaigns, newest first, with their registrations."""
    campaigns, total = await service.list_campaigns(
        session, include_inactive=include_inactive, offset=offset, limit=limit
    )
    return CampaignListResponse(
        items=await web_views(session, campaigns), total=total, limit=limit, offset=offset
    )


@router.patch("/campaigns/{campaign_id}", permission="campaigns:edit", responses={**NOT_FOUND, **DUPLICATE})
async def update_campaign_endpoint(
    session: AsyncSession, campaign_id: int, payload: CampaignUpdateRequest
) -> CampaignResponse:
    """Change the fields sent (an empty body changes nothing)."""
    campaign = await _one(session, campaign_id)
    fields = payload.model_dump(exclude_unset=True)
    try:
        campaign = await service.update_campaign(session, campaign, fields)
    except service.DuplicateSlug as exc:
        raise HTTPError(400, str(exc)) from exc
    return await _view(session, campaign)


@router.delete(
    "/campaigns/{campaign_id}",
    permission="campaigns:delete",
    status_code=204,
    responses={**NOT_FOUND, 400: service.HAS_REGISTRATIONS},
)
async def delete_campaign_endpoint(session: AsyncSession, campaign_id: int) -> None:
    """Delete a campaign nobody registered through (else 400: deactivate it instead)."""
    try:
        await service.delete_campaign(session, await _one(session, campaign_id))
    except service.CampaignError as exc:
        raise HTTPError(400, str(exc)) from exc

"""`/promo-groups` (Web API, tag `promo-groups`): list, read, create, change and delete groups."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Limit, Offset, Router
from subsvc_promo_groups import service
from subsvc_promo_groups.models import PromoGroup
from subsvc_promo_groups.schemas import (
    PromoGroupCreateRequest,
    PromoGroupListResponse,
    PromoGroupResponse,
    PromoGroupUpdateRequest,
)

router = Router(area="web", tag="promo-groups")

READ, CREATE, EDIT, DELETE = (f"promo_groups:{action}" for action in ("read", "create", "edit", "delete"))
NOT_FOUND = "Promo group not found"
DUPLICATE_NAME = "Promo group with this name already exists"
DEFAULT_PROTECTED = "Cannot delete default promo group"
IN_USE = "Promo group is still in use"
NAME_TAKEN = {400: DUPLICATE_NAME}
UNDELETABLE = {400: DEFAULT_PROTECTED, 409: IN_USE}


def _response(group: PromoGroup, members_count: int) -> PromoGroupResponse:
    record = PromoGroupResponse.model_validate(group)
    record.members_count = members_count
    return record


async def _one(request: Request, session: AsyncSession, group: PromoGroup) -> PromoGroupResponse:
    assert group.id is not None
    counts = await service.member_counts(request.app, session, [group.id])
    return _response(group, counts[group.id])


@router.get("/promo-groups", permission=READ)
async def list_promo_groups(
    request: Request, session: AsyncSession, limit: Limit = 50, offset: Offset = 0
) -> PromoGroupListResponse:
    """Groups by priority (highest first), then name, each with its number of members."""
    total, groups = await service.list_groups(session, limit, offset)
    counts = await service.member_counts(request.app, session, [g.id for g in groups if g.id is not None])
    items = [_response(group, counts.get(group.id or 0, 0)) for group in groups]
    return PromoGroupListResponse(items=items, total=total, limit=limit, offset=offset)


@router.get("/promo-groups/{group_id}", permission=READ)
async def get_promo_group(request: Request, session: AsyncSession, group_id: int) -> PromoGroupResponse:
    """One group with its number of members."""
    group = await service.find_group(session, group_id)
    if group is None:
        raise HTTPError(404, NOT_FOUND)
    return await _one(request, session, group)


@router.post("/promo-groups", status_code=201, permission=CREATE, responses=NAME_TAKEN)
async def create_promo_group_endpoint(
    session: AsyncSession, payload: PromoGroupCreateRequest
) -> PromoGroupResponse:
    """Add a group. The first group, or one created with ``is_default``, becomes the default
    group (the group of new users). Names are unique: 400 on a taken one."""
    try:
        group = await service.create_group(session, payload)
    except service.DuplicateGroupName:
        raise HTTPError(400, DUPLICATE_NAME) from None
    return _response(group, 0)


@router.patch("/promo-groups/{group_id}", permission=EDIT, responses=NAME_TAKEN)
async def update_promo_group_endpoint(
    request: Request, session: AsyncSession, group_id: int, payload: PromoGroupUpdateRequest
) -> PromoGroupResponse:
    """Change the given fields; null or absent ones stay. ``is_default: true`` makes the group
    the only default one."""
    try:
        group = await service.update_group(session, group_id, payload)
    except service.PromoGroupNotFound:
        raise HTTPError(404, NOT_FOUND) from None
    except service.DuplicateGroupName:
        raise HTTPError(400, DUPLICATE_NAME) from None
    return await _one(request, session, group)


@router.delete("/promo-groups/{group_id}", status_code=204, permission=DELETE, responses=UNDELETABLE)
async def delete_promo_group_endpoint(request: Request, session: AsyncSession, group_id: int) -> None:
    """Delete a group; its members move to the default group, which cannot be deleted (400)."""
    try:
        await service.delete_group(request.app, session, group_id)
    except service.PromoGroupNotFound:
        raise HTTPError(404, NOT_FOUND) from None
    except service.DefaultGroupProtected:
        raise HTTPError(400, DEFAULT_PROTECTED) from None
    except service.GroupInUse:
        raise HTTPError(409, IN_USE) from None

"""Landing pages for administrators: `/cabinet/admin/landings` (tag Cabinet Admin Landings,
permissions `landings:*`)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Annotated, Any

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import HTTPError, Query, Router
from subsvc_landings import pages, stats
from subsvc_landings.models import LandingPage
from subsvc_landings.schemas import (
    GuestPurchaseStatus,
    LandingCreateRequest,
    LandingDetailResponse,
    LandingListItem,
    LandingPurchaseListResponse,
    LandingStatsResponse,
    LandingUpdateRequest,
    OrderRequest,
)

admin = Router(area="cabinet-admin", tag="Cabinet Admin Landings")
BASE = "/cabinet/admin/landings"
READ, CREATE, EDIT, DELETE = (f"landings:{action}" for action in ("read", "create", "edit", "delete"))
MISSING = {404: pages.NOT_FOUND}
REFUSED = {400: 'Slug "{s}" is reserved and cannot be used, Landing page with slug "{s}" already exists, or '
           + pages.BAD_WINDOW}  # fmt: skip


async def _detail(write: Awaitable[LandingPage]) -> LandingDetailResponse:
    """The page a write answers (400 with the text of a refusal)."""
    try:
        return pages.detail(await write)
    except pages.LandingRefused as refused:
        raise HTTPError(400, str(refused)) from None


async def _page(session: AsyncSession, landing_id: int) -> LandingPage:
    page = await pages.get_landing(session, landing_id)
    if page is None:
        raise HTTPError(404, pages.NOT_FOUND)
    return page


@admin.get(BASE, permission=READ)
async def list_landings(session: AsyncSession) -> list[LandingListItem]:
    """Every landing page in display order, with its purchases counted by status."""
    return await pages.listing(session)


@admin.post(BASE, permission=CREATE, status_code=201, responses=REFUSED)
async def create_landing_page(session: AsyncSession, payload: LandingCreateRequest) -> LandingDetailResponse:
    """Create a landing page (its slug free and not reserved), last in the order."""
    return await _detail(pages.create_landing(session, payload.model_dump(mode="json")))


@admin.put(f"{BASE}/order", permission=EDIT)
async def update_landings_order(session: AsyncSession, payload: OrderRequest) -> dict[str, Any]:
    """Put the listed pages in the list's order."""
    await pages.reorder(session, payload.landing_ids)
    return {"success": True}


@admin.get(f"{BASE}/{{landing_id}}", permission=READ, responses=MISSING)
async def get_landing_detail(session: AsyncSession, landing_id: int) -> LandingDetailResponse:
    """A landing page with its whole configuration."""
    return pages.detail(await _page(session, landing_id))


@admin.put(f"{BASE}/{{landing_id}}", permission=EDIT, responses={**MISSING, **REFUSED})
async def update_landing_page(
    session: AsyncSession, landing_id: int, payload: LandingUpdateRequest
) -> LandingDetailResponse:
    """Change the fields sent."""
    page = await _page(session, landing_id)
    return await _detail(
        pages.update_landing(session, page, payload.model_dump(mode="json", exclude_unset=True))
    )


@admin.delete(f"{BASE}/{{landing_id}}", permission=DELETE, responses=MISSING)
async def delete_landing_page(session: AsyncSession, landing_id: int) -> dict[str, Any]:
    """Delete a landing page; its purchases stay, without it."""
    await pages.delete_landing(session, await _page(session, landing_id))
    return {"success": True}


@admin.post(f"{BASE}/{{landing_id}}/toggle", permission=EDIT, responses=MISSING)
async def toggle_landing_active(session: AsyncSession, landing_id: int) -> LandingDetailResponse:
    """Switch a landing page on or off."""
    page = await _page(session, landing_id)
    return await _detail(pages.update_landing(session, page, {"is_active": not page.is_active}))


@admin.get(f"{BASE}/{{landing_id}}/stats", permission=READ, responses=MISSING)
async def get_landing_stats(session: AsyncSession, landing_id: int) -> LandingStatsResponse:
    """A landing page's purchases, revenue, conversion, by day, tariff, method and source."""
    await _page(session, landing_id)
    return await stats.landing_stats(session, landing_id)


@admin.get(f"{BASE}/{{landing_id}}/purchases", permission=READ, responses=MISSING)
async def get_landing_purchases(
    session: AsyncSession,
    landing_id: int,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    status: GuestPurchaseStatus | None = None,
) -> LandingPurchaseListResponse:
    """A landing page's guest purchases, newest first."""
    await _page(session, landing_id)
    return await stats.landing_purchases(session, landing_id, offset, limit, status)

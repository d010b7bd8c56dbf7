"""The info pages: `/cabinet/admin/info-pages` (tag Cabinet Admin Info Pages, permissions
`info_pages:*`) and, public, `/cabinet/info-pages` (tag Cabinet Info Pages)."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import HTTPError, Path, Query, Router
from subsvc_pages import info_pages
from subsvc_pages.info_page_schemas import (
    PAGE_TYPE_PATTERN,
    SLUG_PATTERN,
    InfoPageCreateRequest,
    InfoPageListItem,
    InfoPageResponse,
    InfoPageUpdateRequest,
    ReorderRequest,
)
from subsvc_pages.models import InfoPage

admin = Router(area="cabinet-admin", tag="Cabinet Admin Info Pages")
public = Router(area="cabinet", tag="Cabinet Info Pages")
ADMIN, PUBLIC = "/cabinet/admin/info-pages", "/cabinet/info-pages"
READ, CREATE, EDIT, DELETE = (f"info_pages:{action}" for action in ("read", "create", "edit", "delete"))
PageType = Annotated[str | None, Query(pattern=PAGE_TYPE_PATTERN)]
Slug = Annotated[str, Path(max_length=200, pattern=SLUG_PATTERN)]
NOT_FOUND = "Info page not found"
SLUG_TAKEN = {409: "Info page with slug '{slug}' already exists"}


def _listed(pages: list[InfoPage]) -> list[InfoPageListItem]:
    return [InfoPageListItem.model_validate(page) for page in pages]


async def _page(session: AsyncSession, page_id: int) -> InfoPage:
    try:
        return await info_pages.get_page(session, page_id)
    except info_pages.InfoPageMissing as exc:
        raise HTTPError(404, NOT_FOUND) from exc


# --- public --------------------------------------------------------------------------------------


@public.get(PUBLIC, public=True)
async def list_active_info_pages(session: AsyncSession, page_type: PageType = None) -> list[InfoPageListItem]:
    """Get all active info pages shown in the cabinet (public, no auth required), in order."""
    return _listed(await info_pages.shown_pages(session, page_type))


@public.get(f"{PUBLIC}/tab-replacements", public=True)
async def get_info_page_tab_replacements(session: AsyncSession) -> dict[str, str | None]:
    """Each replaceable tab (faq, rules, privacy, offer) and the slug of the first shown page
    that replaces it, or null."""
    return await info_pages.tab_replacements(session)


@public.get(f"{PUBLIC}/{{slug}}", public=True, response_model=InfoPageResponse, responses={404: NOT_FOUND})
async def get_info_page_by_slug_public(session: AsyncSession, slug: Slug) -> InfoPage:
    """Get a single shown info page by slug (public, no auth required)."""
    page = await info_pages.shown_page(session, slug)
    if page is None:
        raise HTTPError(404, NOT_FOUND)
    return page


# --- admin ----------------------------------------------------------------------------------------


@admin.get(ADMIN, permission=READ)
async def list_all_info_pages(session: AsyncSession, page_type: PageType = None) -> list[InfoPageListItem]:
    """Get all info pages (admin view, includes inactive), in order."""
    return _listed(await info_pages.list_pages(session, page_type))


@admin.post(ADMIN, permission=CREATE, status_code=201, response_model=InfoPageResponse, responses=SLUG_TAKEN)
async def create_page(session: AsyncSession, payload: InfoPageCreateRequest) -> InfoPage:
    """Create a new info page (its slug unused)."""
    try:
        return await info_pages.create_page(session, payload.model_dump())
    except info_pages.SlugTaken as exc:
        raise HTTPError(409, str(exc)) from exc


@admin.get(
    f"{ADMIN}/{{page_id}}", permission=READ, response_model=InfoPageResponse, responses={404: NOT_FOUND}
)
async def get_info_page_detail(session: AsyncSession, page_id: int) -> InfoPage:
    """Get a single info page by ID (admin view)."""
    return await _page(session, page_id)


@admin.put(
    f"{ADMIN}/{{page_id}}",
    permission=EDIT,
    response_model=InfoPageResponse,
    responses={404: NOT_FOUND, **SLUG_TAKEN},
)
async def update_page(session: AsyncSession, page_id: int, payload: InfoPageUpdateRequest) -> InfoPage:
    """Update the fields sent: null clears `icon` and `replaces_tab`, leaves the others."""
    page = await _page(session, page_id)
    try:
        return await info_pages.update_page(session, page, payload.model_dump(exclude_unset=True))
    except info_pages.SlugTaken as exc:
        raise HTTPError(409, str(exc)) from exc


@admin.delete(f"{ADMIN}/{{page_id}}", permission=DELETE, status_code=204, responses={404: NOT_FOUND})
async def remove_page(session: AsyncSession, page_id: int) -> None:
    """Delete an info page."""
    await info_pages.delete_page(session, await _page(session, page_id))


@admin.post(f"{ADMIN}/reorder", permission=EDIT, status_code=204, responses={404: "Info page {id} not found"})
async def reorder_pages(session: AsyncSession, payload: ReorderRequest) -> None:
    """Bulk update sort_order for info pages; an unknown id changes nothing (404)."""
    try:
        await info_pages.reorder(session, [(item.id, item.sort_order) for item in payload.items])
    except info_pages.InfoPageMissing as exc:
        raise HTTPError(404, str(exc)) from exc


@admin.post(
    f"{ADMIN}/{{page_id}}/toggle-active",
    permission=EDIT,
    response_model=InfoPageResponse,
    responses={404: NOT_FOUND},
)
async def toggle_active(session: AsyncSession, page_id: int) -> InfoPage:
    """Toggle the active status of an info page."""
    page = await _page(session, page_id)
    return await info_pages.update_page(session, page, {"is_active": not page.is_active})

"""The cabinet's info pages: a slug (unique), a title and content per language, a type
(``page`` or ``faq``), an order, an active switch, where it is shown, and optionally a tab of
the information section (faq, rules, privacy, offer) it replaces. No HTTP here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_pages.models import InfoPage
from subsvc_pages.service import normalize_language

TABS = ("faq", "rules", "privacy", "offer")
IN_WEB = ("web", "both")
# Fields a null clears; a null leaves the others unchanged.
CLEARABLE = frozenset({"icon", "replaces_tab"})


class SlugTaken(ValueError):
    def __init__(self, slug: str) -> None:
        super().__init__(f"Info page with slug '{slug}' already exists")


class InfoPageMissing(LookupError):
    def __init__(self, page_id: int) -> None:
        super().__init__(f"Info page {page_id} not found")


def by_language(texts: Mapping[str, str]) -> dict[str, str]:
    """Texts keyed by normalised language (``en-US`` -> ``en``)."""
    return {normalize_language(language): text for language, text in texts.items()}


def _ordered(page_type: str | None) -> Any:
    query = select(InfoPage).order_by(col(InfoPage.sort_order), col(InfoPage.id))
    return query if page_type is None else query.where(col(InfoPage.page_type) == page_type)


async def list_pages(session: AsyncSession, page_type: str | None = None) -> list[InfoPage]:
    """Every page (of the type), in order."""
    return list((await session.exec(_ordered(page_type))).all())


async def shown_pages(session: AsyncSession, page_type: str | None = None) -> list[InfoPage]:
    """The pages the cabinet shows: active, display mode ``web`` or ``both``, in order."""
    return [p for p in await list_pages(session, page_type) if p.is_active and p.display_mode in IN_WEB]


async def shown_page(session: AsyncSession, slug: str) -> InfoPage | None:
    page = (await session.exec(select(InfoPage).where(col(InfoPage.slug) == slug))).first()
    return page if page is not None and page.is_active and page.display_mode in IN_WEB else None


async def tab_replacements(session: AsyncSession) -> dict[str, str | None]:
    """Each tab and the slug of the first shown page replacing it, else null."""
    replacements: dict[str, str | None] = dict.fromkeys(TABS)
    for page in await shown_pages(session):
        if page.replaces_tab in replacements and replacements[page.replaces_tab] is None:
            replacements[page.replaces_tab] = page.slug
    return replacements


async def get_page(session: AsyncSession, page_id: int) -> InfoPage:
    page = await session.get(InfoPage, page_id)
    if page is None:
        raise InfoPageMissing(page_id)
    return page


async def _write(session: AsyncSession, page: InfoPage, changes: dict[str, Any]) -> InfoPage:
    """Apply ``changes`` to the page and write it in a savepoint; :class:`SlugTaken` when
    another page has its slug (even one written concurrently)."""
    slug = changes.get("slug", page.slug)
    try:
        async with session.begin_nested():
            for name, value in changes.items():
                setattr(page, name, value)
            session.add(page)
            await session.flush()
    except IntegrityError as exc:
        raise SlugTaken(slug) from exc
    await session.refresh(page)
    return page


async def create_page(session: AsyncSession, fields: dict[str, Any]) -> InfoPage:
    texts = {"title": by_language(fields.pop("title")), "content": by_language(fields.pop("content"))}
    return await _write(session, InfoPage(**fields), texts)


async def update_page(session: AsyncSession, page: InfoPage, changes: dict[str, Any]) -> InfoPage:
    """Apply the changes: a null clears :data:`CLEARABLE` fields and leaves the others."""
    applied: dict[str, Any] = {"updated_at": utcnow()}
    for name, value in changes.items():
        if value is None and name not in CLEARABLE:
            continue
        applied[name] = by_language(value) if name in ("title", "content") else value
    return await _write(session, page, applied)


async def delete_page(session: AsyncSession, page: InfoPage) -> None:
    await session.delete(page)
    await session.flush()


async def reorder(session: AsyncSession, orders: Sequence[tuple[int, int]]) -> None:
    """Set the given pages' ``sort_order``; :class:`InfoPageMissing` (nothing changed) for an
    unknown id."""
    pages = {page_id: await session.get(InfoPage, page_id) for page_id, _ in orders}
    for page_id, page in pages.items():
        if page is None:
            raise InfoPageMissing(page_id)
    now = utcnow()
    for page_id, sort_order in orders:
        page = pages[page_id]
        assert page is not None
        if page.sort_order != sort_order:
            page.sort_order, page.updated_at = sort_order, now
    await session.flush()

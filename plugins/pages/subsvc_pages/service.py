"""The rules of the information pages (no HTTP here).

Languages are normalised (``en-US`` -> ``en``). A read with ``fallback`` looks at
:data:`DEFAULT_LANGUAGE` when the requested language has nothing. Service rules are
versioned: publishing deactivates the language's active versions and adds a new one, so the
history is kept. The public offer, the privacy policy and the FAQ setting are one row per
language, written with a single atomic upsert.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import func, true, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import add_new, page_of, utcnow
from subsvc_pages.models import (
    FaqPage,
    FaqSetting,
    PrivacyPolicy,
    PublicOffer,
    RecurrentPaymentsDocument,
    ServiceRule,
)

DEFAULT_LANGUAGE = "ru"
MAX_PAGE_LENGTH = 3500
FAQ_ENABLED_BY_DEFAULT = True
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")

Row = TypeVar("Row", bound=SQLModel)
# The one-row-per-language documents, by their display-mode key.
RICH_TEXT_MODELS: dict[str, type[PublicOffer] | type[PrivacyPolicy] | type[RecurrentPaymentsDocument]] = {
    "offer": PublicOffer,
    "privacy": PrivacyPolicy,
    "recurrent": RecurrentPaymentsDocument,
}
RichText = TypeVar("RichText", PublicOffer, PrivacyPolicy, RecurrentPaymentsDocument)


class FaqPageNotInLanguage(LookupError):
    """A reorder names a page that does not exist in the language being reordered."""

    def __init__(self, page_id: int, language: str) -> None:
        super().__init__(f"FAQ page {page_id} not found for language {language}")
        self.page_id = page_id
        self.language = language


# --- languages and content -------------------------------------------------------------------


def normalize_language(language: str | None) -> str:
    """The part before ``-``, lower-cased; empty -> :data:`DEFAULT_LANGUAGE`."""
    base = (language or "").split("-", 1)[0].strip().lower()
    return base or DEFAULT_LANGUAGE


def candidate_languages(language: str, fallback: bool) -> list[str]:
    """Where to look, in order: the language, then the default one when falling back."""
    if fallback and language != DEFAULT_LANGUAGE:
        return [language, DEFAULT_LANGUAGE]
    return [language]


def split_content(content: str | None, max_length: int = MAX_PAGE_LENGTH) -> list[str]:
    """Split text into pages of at most ``max_length`` characters.

    Pages break between paragraphs (blank-line separated); a paragraph longer than a page is
    cut at a line break, else at a space, else anywhere. Empty content gives ``[]``.
    """
    text = (content or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return []
    if len(text) <= max_length:
        return [text]
    pages: list[str] = []
    current = ""
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        for piece in _split_long(paragraph, max_length):
            candidate = f"{current}\n\n{piece}" if current else piece
            if len(candidate) <= max_length:
                current = candidate
            else:
                pages.append(current)
                current = piece
    if current:
        pages.append(current)
    return pages


def _split_long(text: str, limit: int) -> list[str]:
    pieces: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n", 1, limit + 1)
        if cut <= 0:
            cut = text.rfind(" ", 1, limit + 1)
        if cut <= 0:
            pieces.append(text[:limit])
            text = text[limit:]
        else:
            pieces.append(text[:cut].rstrip())
            text = text[cut + 1 :].lstrip()
    if text:
        pieces.append(text)
    return pieces


# --- service rules -----------------------------------------------------------------------------


async def active_rules(session: AsyncSession, language: str, fallback: bool) -> ServiceRule | None:
    """The shown version: active, lowest ``order``, then newest; falling back if asked."""
    for lang in candidate_languages(language, fallback):
        query = (
            select(ServiceRule)
            .where(col(ServiceRule.language) == lang, col(ServiceRule.is_active) == true())
            .order_by(col(ServiceRule.order), col(ServiceRule.created_at).desc(), col(ServiceRule.id).desc())
            .limit(1)
        )
        rule = (await session.exec(query)).first()
        if rule is not None:
            return rule
    return None


async def clear_rules(session: AsyncSession, language: str) -> None:
    """Deactivate every active version of a language (nothing to do is fine)."""
    await session.exec(
        update(ServiceRule)
        .where(col(ServiceRule.language) == language, col(ServiceRule.is_active) == true())
        .values(is_active=False, updated_at=utcnow())
    )


async def publish_rules(
    session: AsyncSession, language: str, title: str, content: str, order: int = 0
) -> ServiceRule:
    """Make a new active version of a language's rules; earlier versions stay as history."""
    await clear_rules(session, language)
    rule = ServiceRule(language=language, title=title, content=content, order=order, is_active=True)
    return await add_new(session, rule)


async def rules_history(session: AsyncSession, language: str, limit: int) -> tuple[int, list[ServiceRule]]:
    """How many versions a language has, and the newest ``limit`` of them (inactive too)."""
    where = [col(ServiceRule.language) == language]
    order = [col(ServiceRule.created_at).desc(), col(ServiceRule.id).desc()]
    rules, total = await page_of(session, ServiceRule, where, order, 0, limit)
    return total, rules


async def restore_rules(session: AsyncSession, language: str, rule_id: int) -> ServiceRule | None:
    """Publish a copy of an earlier version of the language; ``None`` if it has no such version."""
    query = select(ServiceRule).where(col(ServiceRule.id) == rule_id, col(ServiceRule.language) == language)
    source = (await session.exec(query)).first()
    if source is None:
        return None
    return await publish_rules(session, language, source.title, source.content, source.order)


# --- one row per language: public offer, privacy policy, FAQ setting --------------------------


async def _by_language(session: AsyncSession, model: type[Row], language: str, fallback: bool) -> Row | None:
    column: Any = model.language  # type: ignore[attr-defined]
    for lang in candidate_languages(language, fallback):
        row = (await session.exec(select(model).where(column == lang))).first()
        if row is not None:
            return row
    return None


def dialect_insert(session: AsyncSession, model: type[SQLModel]) -> Any:
    """An INSERT of ``model`` able to say ``ON CONFLICT`` on the session's database."""
    dialect = session.get_bind().dialect.name
    dialects = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
    if dialect not in dialects:
        raise NotImplementedError(
            f"no upsert for the {dialect} database (PostgreSQL and SQLite are supported)"
        )
    return dialects[dialect](model)


async def upsert(
    session: AsyncSession,
    model: type[Row],
    key: dict[str, Any],
    values: dict[str, Any],
    new_only: dict[str, Any] | None = None,
) -> Row:
    """Insert the row of ``key`` (one unique column), or update it, in one statement (safe
    under concurrency). ``values`` are written either way; ``new_only`` only when the row is
    created. The model has an ``updated_at`` (and a ``created_at`` when it has one)."""
    now = utcnow()
    stamps = {"updated_at": now}
    if "created_at" in model.model_fields:
        stamps["created_at"] = now
    statement = (
        dialect_insert(session, model)
        .values(**key, **stamps, **(new_only or {}), **values)
        .on_conflict_do_update(index_elements=list(key), set_={**values, "updated_at": now})
        .returning(model)
    )
    result = await session.exec(statement, execution_options={"populate_existing": True})
    upserted: Row = result.scalars().one()
    return upserted


async def _upsert(
    session: AsyncSession, model: type[Row], language: str, values: dict[str, Any], new_only: dict[str, Any]
) -> Row:
    """:func:`upsert` of a one-row-per-language table."""
    return await upsert(session, model, {"language": language}, values, new_only)


async def find_rich_text(
    session: AsyncSession, model: type[RichText], language: str, fallback: bool
) -> RichText | None:
    """The public offer or privacy policy of a language (or of the default one)."""
    return await _by_language(session, model, language, fallback)


async def save_rich_text(
    session: AsyncSession, model: type[RichText], language: str, content: str, is_enabled: bool | None
) -> RichText:
    """Create or replace a language's page; ``is_enabled=None`` keeps the flag (new: enabled)."""
    values: dict[str, Any] = {"content": content}
    new_only: dict[str, Any] = {}
    if is_enabled is None:
        new_only["is_enabled"] = True
    else:
        values["is_enabled"] = is_enabled
    return await _upsert(session, model, language, values, new_only)


@dataclass(frozen=True)
class FaqStatus:
    """The FAQ switch as found: the language it was found for and its value."""

    language: str
    is_enabled: bool


async def faq_status(session: AsyncSession, language: str, fallback: bool) -> FaqStatus:
    """The FAQ switch of a language; without a stored one the FAQ is enabled."""
    setting = await _by_language(session, FaqSetting, language, fallback)
    if setting is None:
        return FaqStatus(language, FAQ_ENABLED_BY_DEFAULT)
    return FaqStatus(setting.language, setting.is_enabled)


async def set_faq_enabled(session: AsyncSession, language: str, is_enabled: bool) -> FaqStatus:
    setting = await _upsert(session, FaqSetting, language, {"is_enabled": is_enabled}, {})
    return FaqStatus(setting.language, setting.is_enabled)


# --- FAQ pages -----------------------------------------------------------------------------------


def _pages_query(language: str, include_inactive: bool) -> Any:
    query = select(FaqPage).where(col(FaqPage.language) == language)
    if not include_inactive:
        query = query.where(col(FaqPage.is_active) == true())
    return query.order_by(col(FaqPage.display_order), col(FaqPage.id))


@dataclass(frozen=True)
class FaqListing:
    """The FAQ of a language as shown: where it was found, its switch and its pages."""

    language: str
    is_enabled: bool
    pages: list[FaqPage]


async def faq_listing(
    session: AsyncSession, language: str, *, include_inactive: bool, fallback: bool
) -> FaqListing:
    """A language's pages in display order (the default language's when it has none and
    ``fallback``), with the FAQ switch of the language found."""
    found, pages = language, []
    for lang in candidate_languages(language, fallback):
        pages = list((await session.exec(_pages_query(lang, include_inactive))).all())
        if pages:
            found = lang
            break
    status = await faq_status(session, found, fallback)
    return FaqListing(found, status.is_enabled, pages)


async def get_faq_page(session: AsyncSession, page_id: int) -> FaqPage | None:
    return await session.get(FaqPage, page_id)


async def find_faq_page(
    session: AsyncSession, page_id: int, language: str, *, include_inactive: bool
) -> FaqPage | None:
    """A page of the language (or of the default language), active unless asked otherwise."""
    page = await get_faq_page(session, page_id)
    if page is None or page.language not in candidate_languages(language, True):
        return None
    if not include_inactive and not page.is_active:
        return None
    return page


async def create_faq_page(
    session: AsyncSession,
    language: str,
    title: str,
    content: str,
    display_order: int | None = None,
    is_active: bool = True,
) -> FaqPage:
    """Add a page; without ``display_order`` it goes after the language's last page."""
    if display_order is None:
        query = select(func.max(FaqPage.display_order)).where(col(FaqPage.language) == language)
        display_order = ((await session.exec(query)).one() or 0) + 1
    page = FaqPage(
        language=language, title=title, content=content, display_order=display_order, is_active=is_active
    )
    return await add_new(session, page)


async def update_faq_page(session: AsyncSession, page: FaqPage, changes: dict[str, Any]) -> FaqPage:
    """Apply the given fields (``None`` values mean "leave as is")."""
    for name, value in changes.items():
        if value is not None:
            setattr(page, name, value)
    page.updated_at = utcnow()
    await session.flush()
    return page


async def delete_faq_page(session: AsyncSession, page: FaqPage) -> None:
    await session.delete(page)
    await session.flush()


async def reorder_faq_pages(
    session: AsyncSession, language: str, orders: Sequence[tuple[int, int]]
) -> list[FaqPage]:
    """Set the given ``(page id, display order)`` pairs; the language's other pages keep
    their relative order and follow the highest given position. Returns the pages in order.

    Raises :class:`FaqPageNotInLanguage` for an id that is not a page of the language.
    """
    pages = {page.id: page for page in (await session.exec(_pages_query(language, True))).all()}
    wanted = dict(orders)
    for page_id in wanted:
        if page_id not in pages:
            raise FaqPageNotInLanguage(page_id, language)
    now = utcnow()
    following = [page for page_id, page in pages.items() if page_id not in wanted]  # in display order
    next_position = max(wanted.values()) + 1 if wanted else 1
    positions = {**wanted, **{page.id: next_position + i for i, page in enumerate(following)}}
    for page_id, position in positions.items():
        page = pages[page_id]
        if page.display_order != position:
            page.display_order = position
            page.updated_at = now
    await session.flush()
    return sorted(pages.values(), key=lambda p: (p.display_order, p.id or 0))

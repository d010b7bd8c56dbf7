"""The documents as the cabinet's administrators edit them (`/cabinet/admin/legal-pages`):
every language at once, with the document's display mode."""

from __future__ import annotations

from typing import Any

from sqlalchemy import true
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc_pages import service
from subsvc_pages.models import FaqPage, FaqSetting, ServiceRule
from subsvc_pages.schemas import DEFAULT_RULES_TITLE


async def rich_texts(session: AsyncSession, model: type[service.RichText]) -> list[service.RichText]:
    """Every language's row of a one-row-per-language document, by language."""
    column: Any = model.language
    return list((await session.exec(select(model).order_by(column))).all())


async def active_rules(session: AsyncSession) -> list[ServiceRule]:
    """The shown version of every language's rules, by language."""
    query = select(col(ServiceRule.language)).where(col(ServiceRule.is_active) == true()).distinct()
    languages = sorted((await session.exec(query)).all())
    shown = [await service.active_rules(session, language, fallback=False) for language in languages]
    return [rule for rule in shown if rule is not None]


async def save_rules(session: AsyncSession, language: str, content: str) -> None:
    """Publish the language's rules as a new version, unless they are the shown text already
    (saving the form again adds no version)."""
    current = await service.active_rules(session, language, fallback=False)
    if current is not None and current.content == content:
        return
    title = current.title if current is not None else DEFAULT_RULES_TITLE
    await service.publish_rules(session, language, title, content)


async def faq_settings(session: AsyncSession) -> list[FaqSetting]:
    return list((await session.exec(select(FaqSetting).order_by(col(FaqSetting.language)))).all())


async def all_faq_pages(session: AsyncSession) -> list[FaqPage]:
    """Every language's FAQ pages: by language, then display order."""
    query = select(FaqPage).order_by(col(FaqPage.language), col(FaqPage.display_order), col(FaqPage.id))
    return list((await session.exec(query)).all())

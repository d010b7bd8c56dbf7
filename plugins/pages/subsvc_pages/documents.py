"""The documents as the cabinet shows them (`/cabinet/info`): only those shown in the web,
stored text with the default-language fallback, else a built-in text where the reference has
one."""

from __future__ import annotations

from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_pages import service
from subsvc_pages.cabinet_schemas import DocumentResponse
from subsvc_pages.display import Document, display_mode
from subsvc_pages.models import FaqPage
from subsvc_pages.settings import PagesSettings

DEFAULT_RULES = (
    "Правила сервиса\n\nИспользуя сервис, вы соглашаетесь соблюдать законодательство и не "
    "использовать сервис для противоправных действий."
)
DEFAULT_PRIVACY_POLICY = (
    "Политика конфиденциальности\n\nМы обрабатываем только данные, необходимые для работы "
    "сервиса, и не передаём их третьим лицам, кроме случаев, предусмотренных законом."
)
DEFAULT_PUBLIC_OFFER = "Публичная оферта\n\nОплачивая подписку, вы принимаете условия предоставления сервиса."
BUILT_IN: dict[Document, str] = {"privacy": DEFAULT_PRIVACY_POLICY, "offer": DEFAULT_PUBLIC_OFFER}


class NotShown(LookupError):
    """The document is not shown in the cabinet (its display mode is ``bot``), or has no text."""


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


async def _visible(app: Starlette, session: AsyncSession, document: Document) -> None:
    if not (await display_mode(app, session, document)).in_web:
        raise NotShown(document)


async def rules(app: Starlette, session: AsyncSession, language: str) -> DocumentResponse:
    """The active rules of the language (else the default language's), else the built-in text."""
    await _visible(app, session, "rules")
    rule = await service.active_rules(session, service.normalize_language(language), fallback=True)
    if rule is None:
        return DocumentResponse(content=DEFAULT_RULES, updated_at=None)
    return DocumentResponse(content=rule.content, updated_at=iso(rule.updated_at))


async def rich_text(
    app: Starlette, session: AsyncSession, document: Document, language: str
) -> DocumentResponse:
    """The text of the language (else the default language's) of the public offer, privacy
    policy or recurring-payments terms. Without a stored one: the built-in text (offer, policy)
    or the ``RECURRENT_PAYMENTS_TEXT`` setting (terms); a disabled or empty stored one, or
    nothing to show: :class:`NotShown`."""
    await _visible(app, session, document)
    model = service.RICH_TEXT_MODELS[document]
    page = await service.find_rich_text(session, model, service.normalize_language(language), True)  # type: ignore[type-var]
    if page is not None:
        if not page.is_enabled or not page.content.strip():
            raise NotShown(document)
        return DocumentResponse(content=page.content, updated_at=iso(page.updated_at))
    text = BUILT_IN.get(document) or PagesSettings.of(app).RECURRENT_PAYMENTS_TEXT
    if not text:
        raise NotShown(document)
    return DocumentResponse(content=text, updated_at=None)


async def faq_pages(app: Starlette, session: AsyncSession, language: str) -> list[FaqPage]:
    """The active FAQ pages of the language (else the default language's) in display order;
    none when the FAQ is not shown in the cabinet or is switched off for the language."""
    if not (await display_mode(app, session, "faq")).in_web:
        return []
    listing = await service.faq_listing(
        session, service.normalize_language(language), include_inactive=False, fallback=True
    )
    return listing.pages if listing.is_enabled else []


async def text(app: Starlette, session: AsyncSession, document: Document, language: str) -> DocumentResponse:
    """:func:`rules` or :func:`rich_text`, by document."""
    if document == "rules":
        return await rules(app, session, language)
    return await rich_text(app, session, document, language)

"""`/cabinet/admin/legal-pages` (tag Cabinet Admin Legal Pages, permissions `info_pages:*`):
the public offer, privacy policy, recurring-payments terms, service rules and FAQ of every
language, and where each is shown."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Router
from subsvc_pages import legal, service
from subsvc_pages.cabinet_schemas import (
    FaqPageItem,
    FaqResponse,
    FaqSettingItem,
    FaqUpdateRequest,
    LegalDocumentItem,
    LegalDocumentResponse,
    LegalDocumentUpdateRequest,
    LegalFaqPageCreateRequest,
    LegalRulesResponse,
    RulesItem,
    RulesUpdateRequest,
)
from subsvc_pages.display import DisplayModeLocked, Document, display_mode, set_display_mode
from subsvc_pages.documents import iso
from subsvc_pages.models import FaqPage
from subsvc_pages.schemas import FaqPageUpdateRequest

admin = Router(area="cabinet-admin", tag="Cabinet Admin Legal Pages")
BASE = "/cabinet/admin/legal-pages"
READ, CREATE, EDIT, DELETE = (f"info_pages:{action}" for action in ("read", "create", "edit", "delete"))
LOCKED = {400: "Display mode is fixed by <its setting>=<mode> (a different display_mode was sent)"}
FAQ_PAGE_NOT_FOUND = "FAQ page not found"


async def _mode(
    request: Request, session: AsyncSession, document: Document, wanted: str | None
) -> tuple[str, bool]:
    """The document's display mode after storing ``wanted`` (when given)."""
    try:
        mode = (
            await set_display_mode(request.app, session, document, wanted)
            if wanted is not None
            else await display_mode(request.app, session, document)
        )
    except DisplayModeLocked as exc:
        raise HTTPError(400, str(exc)) from exc
    return mode.mode, mode.env_locked


# --- public offer, privacy policy, recurring-payments terms ------------------------------------


async def _legal_document(
    request: Request, session: AsyncSession, document: Document, payload: LegalDocumentUpdateRequest | None
) -> LegalDocumentResponse:
    """The document of every language; ``payload`` first stores its display mode and items."""
    mode, locked = await _mode(request, session, document, payload.display_mode if payload else None)
    model = service.RICH_TEXT_MODELS[document]
    for item in (payload.items or []) if payload else []:
        language = service.normalize_language(item.language)
        await service.save_rich_text(session, model, language, item.content, item.is_enabled)  # type: ignore[type-var]
    rows = await legal.rich_texts(session, model)  # type: ignore[type-var]
    items = [
        LegalDocumentItem(
            language=r.language, content=r.content, is_enabled=r.is_enabled, updated_at=iso(r.updated_at)
        )
        for r in rows
    ]
    return LegalDocumentResponse(display_mode=mode, display_mode_env_locked=locked, items=items)


def _document_endpoints(slug: str, document: Document, label: str) -> None:
    """``GET`` and ``PUT`` of one document at ``{BASE}/{slug}``."""

    async def read(request: Request, session: AsyncSession) -> LegalDocumentResponse:
        return await _legal_document(request, session, document, None)

    async def write(
        request: Request, session: AsyncSession, payload: LegalDocumentUpdateRequest
    ) -> LegalDocumentResponse:
        return await _legal_document(request, session, document, payload)

    name = slug.replace("-", "_")
    read.__doc__ = f"The {label} of every language, and where it is shown."
    write.__doc__ = (
        f"Store the {label}'s display mode (when given; not one the environment fixes) and the "
        "given languages' texts and switches (others unchanged)."
    )
    admin.get(f"{BASE}/{slug}", permission=READ, name=f"get_{name}_admin")(read)
    admin.put(f"{BASE}/{slug}", permission=EDIT, name=f"update_{name}_admin", responses=LOCKED)(write)


_document_endpoints("privacy-policy", "privacy", "privacy policy")
_document_endpoints("public-offer", "offer", "public offer")
_document_endpoints("recurrent-payments", "recurrent", "recurring-payments terms")


# --- service rules -------------------------------------------------------------------------------


async def _rules(
    request: Request, session: AsyncSession, payload: RulesUpdateRequest | None
) -> LegalRulesResponse:
    mode, locked = await _mode(request, session, "rules", payload.display_mode if payload else None)
    for item in (payload.items or []) if payload else []:
        await legal.save_rules(session, service.normalize_language(item.language), item.content)
    rules = await legal.active_rules(session)
    items = [RulesItem(language=r.language, content=r.content, updated_at=iso(r.updated_at)) for r in rules]
    return LegalRulesResponse(display_mode=mode, display_mode_env_locked=locked, items=items)


@admin.get(f"{BASE}/rules", permission=READ, response_model=LegalRulesResponse)
async def get_rules_admin(request: Request, session: AsyncSession) -> LegalRulesResponse:
    """The shown rules of every language, and where they are shown."""
    return await _rules(request, session, None)


@admin.put(f"{BASE}/rules", permission=EDIT, responses=LOCKED)
async def update_rules_admin(
    request: Request, session: AsyncSession, payload: RulesUpdateRequest
) -> LegalRulesResponse:
    """Store the display mode (when given) and publish the given languages' rules (a new
    version, kept in the history, unless the text is the shown one)."""
    return await _rules(request, session, payload)


# --- FAQ -------------------------------------------------------------------------------------------


def _faq_item(page: FaqPage) -> FaqPageItem:
    return FaqPageItem(
        id=page.id or 0,
        language=page.language,
        title=page.title,
        content=page.content,
        display_order=page.display_order,
        is_active=page.is_active,
        updated_at=iso(page.updated_at),
    )


async def _faq(request: Request, session: AsyncSession, payload: FaqUpdateRequest | None) -> FaqResponse:
    mode, locked = await _mode(request, session, "faq", payload.display_mode if payload else None)
    for item in (payload.settings or []) if payload else []:
        await service.set_faq_enabled(session, service.normalize_language(item.language), item.is_enabled)
    settings = [
        FaqSettingItem(language=s.language, is_enabled=s.is_enabled)
        for s in await legal.faq_settings(session)
    ]
    pages = [_faq_item(page) for page in await legal.all_faq_pages(session)]
    return FaqResponse(display_mode=mode, display_mode_env_locked=locked, settings=settings, pages=pages)


@admin.get(f"{BASE}/faq", permission=READ)
async def get_faq_admin(request: Request, session: AsyncSession) -> FaqResponse:
    """The FAQ of every language (switches and pages), and where it is shown."""
    return await _faq(request, session, None)


@admin.put(f"{BASE}/faq", permission=EDIT, responses=LOCKED)
async def update_faq_admin(request: Request, session: AsyncSession, payload: FaqUpdateRequest) -> FaqResponse:
    """Store the display mode (when given) and the given languages' FAQ switches."""
    return await _faq(request, session, payload)


@admin.post(f"{BASE}/faq/pages", permission=CREATE, status_code=201)
async def create_faq_page_admin(session: AsyncSession, payload: LegalFaqPageCreateRequest) -> FaqPageItem:
    """Add a FAQ page; without ``display_order`` it goes after the language's last page."""
    language = service.normalize_language(payload.language)
    page = await service.create_faq_page(
        session, language, payload.title, payload.content, payload.display_order, payload.is_active
    )
    return _faq_item(page)


@admin.put(f"{BASE}/faq/pages/{{page_id}}", permission=EDIT, responses={404: FAQ_PAGE_NOT_FOUND})
async def update_faq_page_admin(
    session: AsyncSession, page_id: int, payload: FaqPageUpdateRequest
) -> FaqPageItem:
    """Change the given fields of a FAQ page (null: unchanged)."""
    page = await service.get_faq_page(session, page_id)
    if page is None:
        raise HTTPError(404, FAQ_PAGE_NOT_FOUND)
    return _faq_item(await service.update_faq_page(session, page, payload.model_dump()))


@admin.delete(
    f"{BASE}/faq/pages/{{page_id}}", permission=DELETE, status_code=204, responses={404: FAQ_PAGE_NOT_FOUND}
)
async def delete_faq_page_admin(session: AsyncSession, page_id: int) -> None:
    """Remove a FAQ page for good."""
    page = await service.get_faq_page(session, page_id)
    if page is None:
        raise HTTPError(404, FAQ_PAGE_NOT_FOUND)
    await service.delete_faq_page(session, page)

"""`/pages` (Web API, tag `pages`): service rules, public offer, privacy policy and FAQ."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import HTTPError, Query, Router, from_attributes
from subsvc_pages import service
from subsvc_pages.models import FaqPage, PrivacyPolicy, PublicOffer, ServiceRule
from subsvc_pages.schemas import (
    DEFAULT_RULES_TITLE,
    FaqPageCreateRequest,
    FaqPageListResponse,
    FaqPageResponse,
    FaqPageUpdateRequest,
    FaqReorderRequest,
    FaqStatusResponse,
    FaqStatusUpdateRequest,
    RichTextPageResponse,
    RichTextPageUpdateRequest,
    ServiceRulesHistoryResponse,
    ServiceRulesResponse,
    ServiceRulesUpdateRequest,
)

router = Router(area="web", tag="pages")

Language = Annotated[str, Query(min_length=2, max_length=10)]
HistoryLimit = Annotated[int, Query(ge=1, le=100)]
Fallback = Annotated[bool, Query(description="Использовать запасной язык, если контента нет")]
IncludeDisabled = Annotated[bool, Query(description="Возвращать контент даже если страница выключена")]

READ, CREATE, EDIT, DELETE = (f"info_pages:{action}" for action in ("read", "create", "edit", "delete"))

RULES_NOT_FOUND = "Service rules not found"
PUBLIC_OFFER, PRIVACY_POLICY = "Public offer", "Privacy policy"
IS_ENABLED_REQUIRED = "Parameter 'is_enabled' is required"


def _missing(name: str) -> dict[int, str]:
    """What reading a rich-text page answers when there is none to show."""
    return {404: f"{name} not found, or {name} disabled (unless include_disabled)"}


# --- service rules -----------------------------------------------------------------------------


@router.get(
    "/pages/service-rules",
    response_model=ServiceRulesResponse,
    permission=READ,
    responses={404: RULES_NOT_FOUND},
)
async def get_service_rules(
    session: AsyncSession, language: Language = "ru", fallback: bool = True
) -> ServiceRule:
    """The active service rules of a language (or of the default language with ``fallback``)."""
    rule = await service.active_rules(session, service.normalize_language(language), fallback)
    if rule is None:
        raise HTTPError(404, RULES_NOT_FOUND)
    return rule


@router.put("/pages/service-rules", response_model=ServiceRulesResponse, permission=EDIT)
async def update_service_rules(session: AsyncSession, payload: ServiceRulesUpdateRequest) -> ServiceRule:
    """Publish a new version; the language's earlier versions are deactivated and kept."""
    language = service.normalize_language(payload.language)
    return await service.publish_rules(
        session, language, payload.title or DEFAULT_RULES_TITLE, payload.content
    )


@router.delete("/pages/service-rules", status_code=204, permission=DELETE)
async def clear_service_rules(session: AsyncSession, language: Language = "ru") -> None:
    """Deactivate the language's rules (no error when there are none)."""
    await service.clear_rules(session, service.normalize_language(language))


@router.get("/pages/service-rules/history", permission=READ)
async def get_service_rules_history(
    session: AsyncSession, language: Language = "ru", limit: HistoryLimit = 10
) -> ServiceRulesHistoryResponse:
    """Every version of a language, newest first, inactive ones included."""
    lang = service.normalize_language(language)
    total, rules = await service.rules_history(session, lang, limit)
    items = [ServiceRulesResponse.model_validate(rule) for rule in rules]
    return ServiceRulesHistoryResponse(language=lang, total=total, items=items)


@router.post(
    "/pages/service-rules/history/{rule_id}/restore",
    response_model=ServiceRulesResponse,
    status_code=201,
    permission=EDIT,
)
async def restore_service_rules_version(
    session: AsyncSession, rule_id: int, language: Language = "ru"
) -> ServiceRule:
    """Publish a copy of an earlier version of the language as the active one."""
    rule = await service.restore_rules(session, service.normalize_language(language), rule_id)
    if rule is None:
        raise HTTPError(404, "Rules version not found")
    return rule


# --- public offer and privacy policy -------------------------------------------------------


def _rich_text(requested: str, page: service.RichText) -> RichTextPageResponse:
    content_pages = service.split_content(page.content)
    return from_attributes(
        RichTextPageResponse, page, requested_language=requested, content_pages=content_pages
    )


async def _read_rich_text(
    session: AsyncSession,
    model: type[service.RichText],
    name: str,
    language: str,
    fallback: bool,
    include_disabled: bool,
) -> RichTextPageResponse:
    requested = service.normalize_language(language)
    page = await service.find_rich_text(session, model, requested, fallback)
    if page is None:
        raise HTTPError(404, f"{name} not found")
    if not include_disabled and not page.is_enabled:
        raise HTTPError(404, f"{name} disabled")
    return _rich_text(requested, page)


async def _write_rich_text(
    session: AsyncSession, model: type[service.RichText], payload: RichTextPageUpdateRequest
) -> RichTextPageResponse:
    language = service.normalize_language(payload.language)
    page = await service.save_rich_text(session, model, language, payload.content, payload.is_enabled)
    return _rich_text(language, page)


@router.get("/pages/public-offer", permission=READ, responses=_missing(PUBLIC_OFFER))
async def get_public_offer(
    session: AsyncSession,
    language: Language = "ru",
    fallback: Fallback = True,
    include_disabled: IncludeDisabled = True,
) -> RichTextPageResponse:
    """The public offer of a language, split into pages for display."""
    return await _read_rich_text(session, PublicOffer, PUBLIC_OFFER, language, fallback, include_disabled)


@router.put("/pages/public-offer", permission=EDIT)
async def update_public_offer(
    session: AsyncSession, payload: RichTextPageUpdateRequest
) -> RichTextPageResponse:
    """Create or replace the public offer of a language (``is_enabled`` only when given)."""
    return await _write_rich_text(session, PublicOffer, payload)


@router.get("/pages/privacy-policy", permission=READ, responses=_missing(PRIVACY_POLICY))
async def get_privacy_policy(
    session: AsyncSession, language: Language = "ru", fallback: bool = True, include_disabled: bool = True
) -> RichTextPageResponse:
    """The privacy policy of a language, split into pages for display."""
    return await _read_rich_text(session, PrivacyPolicy, PRIVACY_POLICY, language, fallback, include_disabled)


@router.put("/pages/privacy-policy", permission=EDIT)
async def update_privacy_policy(
    session: AsyncSession, payload: RichTextPageUpdateRequest
) -> RichTextPageResponse:
    """Create or replace the privacy policy of a language (``is_enabled`` only when given)."""
    return await _write_rich_text(session, PrivacyPolicy, payload)


# --- FAQ ---------------------------------------------------------------------------------------


def _faq_page(page: FaqPage) -> FaqPageResponse:
    """The page as answered: its fields, and its content split into pages."""
    return from_attributes(FaqPageResponse, page, content_pages=service.split_content(page.content))


def _faq_list(requested: str, listing: service.FaqListing) -> FaqPageListResponse:
    items = [_faq_page(page) for page in listing.pages]
    return from_attributes(
        FaqPageListResponse, listing, requested_language=requested, total=len(items), items=items
    )


def _faq_status(requested: str, status: service.FaqStatus) -> FaqStatusResponse:
    return FaqStatusResponse(
        requested_language=requested, language=status.language, is_enabled=status.is_enabled
    )


@router.get("/pages/faq", permission=READ)
async def list_faq_pages(
    session: AsyncSession, language: Language = "ru", include_inactive: bool = True, fallback: bool = True
) -> FaqPageListResponse:
    """The FAQ pages of a language in display order, with the FAQ switch."""
    requested = service.normalize_language(language)
    listing = await service.faq_listing(
        session, requested, include_inactive=include_inactive, fallback=fallback
    )
    return _faq_list(requested, listing)


@router.post("/pages/faq", status_code=201, permission=CREATE)
async def create_faq_page(session: AsyncSession, payload: FaqPageCreateRequest) -> FaqPageResponse:
    """Add a page; without ``display_order`` it goes after the language's last page."""
    page = await service.create_faq_page(
        session,
        service.normalize_language(payload.language),
        payload.title,
        payload.content,
        payload.display_order,
        True if payload.is_active is None else payload.is_active,
    )
    return _faq_page(page)


@router.get("/pages/faq/status", permission=READ)
async def get_faq_status(
    session: AsyncSession, language: Language = "ru", fallback: bool = True
) -> FaqStatusResponse:
    """Whether the FAQ is shown for a language (enabled unless switched off)."""
    requested = service.normalize_language(language)
    status = await service.faq_status(session, requested, fallback)
    return _faq_status(requested, status)


@router.put("/pages/faq/status", permission=EDIT, responses={400: IS_ENABLED_REQUIRED})
async def update_faq_status(
    session: AsyncSession,
    language: Language = "ru",
    is_enabled: bool | None = None,
    payload: FaqStatusUpdateRequest | None = None,
) -> FaqStatusResponse:
    """Switch the FAQ of a language on or off; from the JSON body, else from the query."""
    if payload is not None:
        language, is_enabled = payload.language, payload.is_enabled
    if is_enabled is None:
        raise HTTPError(400, IS_ENABLED_REQUIRED)
    requested = service.normalize_language(language)
    status = await service.set_faq_enabled(session, requested, is_enabled)
    return _faq_status(requested, status)


@router.post(
    "/pages/faq/reorder", permission=EDIT, responses={404: "FAQ page {id} not found for language {language}"}
)
async def reorder_faq_pages(session: AsyncSession, payload: FaqReorderRequest) -> FaqPageListResponse:
    """Set the display order of the given pages; the others follow in their current order."""
    language = service.normalize_language(payload.language)
    orders = [(item.id, item.display_order) for item in payload.items]
    try:
        pages = await service.reorder_faq_pages(session, language, orders)
    except service.FaqPageNotInLanguage as exc:
        raise HTTPError(404, str(exc)) from exc
    status = await service.faq_status(session, language, fallback=False)
    return _faq_list(language, service.FaqListing(language, status.is_enabled, pages))


async def _existing_faq_page(session: AsyncSession, page_id: int) -> FaqPage:
    page = await service.get_faq_page(session, page_id)
    if page is None:
        raise HTTPError(404, "FAQ page not found")
    return page


@router.get("/pages/faq/{page_id}", permission=READ)
async def get_faq_page(
    session: AsyncSession, page_id: int, language: Language = "ru", include_inactive: bool = True
) -> FaqPageResponse:
    """A page of the language (pages of the default language are found too)."""
    requested = service.normalize_language(language)
    page = await service.find_faq_page(session, page_id, requested, include_inactive=include_inactive)
    if page is None:
        raise HTTPError(404, "FAQ page not found")
    return _faq_page(page)


@router.put("/pages/faq/{page_id}", permission=EDIT)
async def update_faq_page(
    session: AsyncSession, page_id: int, payload: FaqPageUpdateRequest
) -> FaqPageResponse:
    """Change the given fields of a page (``null`` leaves a field as it is)."""
    page = await _existing_faq_page(session, page_id)
    page = await service.update_faq_page(session, page, payload.model_dump(exclude_unset=True))
    return _faq_page(page)


@router.delete("/pages/faq/{page_id}", status_code=204, permission=DELETE)
async def delete_faq_page(session: AsyncSession, page_id: int) -> None:
    """Delete a page for good."""
    await service.delete_faq_page(session, await _existing_faq_page(session, page_id))

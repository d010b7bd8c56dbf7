"""`/cabinet/info` (tag Cabinet Info): the documents as the cabinet shows them, the service's
description, its languages and the user's, the legal consent and what is shown. Public but
for ``/user/language``."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import UserUpdateRequest, get_user, update_user

from subsvc.api import Body, HTTPError, Query, Router
from subsvc.auth.principal import Principal
from subsvc_pages import documents, service
from subsvc_pages.cabinet_schemas import (
    DocumentResponse,
    InfoFaqPageResponse,
    InfoVisibilityResponse,
    LanguagesResponse,
    LegalConsentConfigResponse,
    ServiceInfoResponse,
    UserLanguageResponse,
)
from subsvc_pages.consent import legal_consent_config
from subsvc_pages.display import Document, display_mode, display_modes
from subsvc_pages.languages import available, describe
from subsvc_pages.models import FaqPage
from subsvc_pages.settings import PagesSettings

info = Router(area="cabinet", tag="Cabinet Info")
Language = Annotated[str, Query(min_length=2, max_length=10)]

FAQ_NOT_AVAILABLE, FAQ_PAGE_NOT_FOUND = "FAQ is not available", "FAQ page not found"
NOT_AVAILABLE: dict[Document, str] = {
    "rules": "Rules are not available",
    "privacy": "Privacy policy is not available",
    "offer": "Public offer is not available",
    "recurrent": "Recurring-payments document is not available",
}
DEFAULT_SERVICE_NAME = "VPN Service"


def _faq_item(page: FaqPage) -> InfoFaqPageResponse:
    return InfoFaqPageResponse(
        id=page.id or 0, title=page.title, content=page.content, order=page.display_order
    )


@info.get("/cabinet/info/faq", public=True)
async def get_faq_pages(
    request: Request, session: AsyncSession, language: Language = "ru"
) -> list[InfoFaqPageResponse]:
    """Get list of FAQ pages: the language's active pages (else the default language's); none
    when the FAQ is not shown in the cabinet or is switched off."""
    return [_faq_item(page) for page in await documents.faq_pages(request.app, session, language)]


@info.get(
    "/cabinet/info/faq/{page_id}",
    public=True,
    responses={404: f"{FAQ_NOT_AVAILABLE}, or {FAQ_PAGE_NOT_FOUND}"},
)
async def get_faq_page(
    request: Request, session: AsyncSession, page_id: int, language: Language = "ru"
) -> InfoFaqPageResponse:
    """Get a specific FAQ page by ID (active, of the language or of the default one)."""
    if not (await display_mode(request.app, session, "faq")).in_web:
        raise HTTPError(404, FAQ_NOT_AVAILABLE)
    lang = service.normalize_language(language)
    page = await service.find_faq_page(session, page_id, lang, include_inactive=False)
    if page is None:
        raise HTTPError(404, FAQ_PAGE_NOT_FOUND)
    return _faq_item(page)


@info.get("/cabinet/info/rules", public=True, responses={404: NOT_AVAILABLE["rules"]})
async def get_rules(request: Request, session: AsyncSession, language: Language = "ru") -> DocumentResponse:
    """Get service rules: the language's active version (else the default language's), else
    the built-in text."""
    try:
        return await documents.rules(request.app, session, language)
    except documents.NotShown as exc:
        raise HTTPError(404, NOT_AVAILABLE["rules"]) from exc


async def _rich_text(
    request: Request, session: AsyncSession, document: Document, language: str
) -> DocumentResponse:
    try:
        return await documents.rich_text(request.app, session, document, language)
    except documents.NotShown as exc:
        raise HTTPError(404, NOT_AVAILABLE[document]) from exc


@info.get("/cabinet/info/privacy-policy", public=True, responses={404: NOT_AVAILABLE["privacy"]})
async def get_privacy_policy(
    request: Request, session: AsyncSession, language: Language = "ru"
) -> DocumentResponse:
    """Get privacy policy (of the language, else of the default one, else the built-in text)."""
    return await _rich_text(request, session, "privacy", language)


@info.get("/cabinet/info/public-offer", public=True, responses={404: NOT_AVAILABLE["offer"]})
async def get_public_offer(
    request: Request, session: AsyncSession, language: Language = "ru"
) -> DocumentResponse:
    """Get public offer (of the language, else of the default one, else the built-in text)."""
    return await _rich_text(request, session, "offer", language)


@info.get("/cabinet/info/recurrent-payments", public=True, responses={404: NOT_AVAILABLE["recurrent"]})
async def get_recurrent_payments(
    request: Request, session: AsyncSession, language: Language = "ru"
) -> DocumentResponse:
    """Get recurring-payments terms document (of the language, else of the default one, else
    the ``RECURRENT_PAYMENTS_TEXT`` setting)."""
    return await _rich_text(request, session, "recurrent", language)


@info.get("/cabinet/info/service", public=True)
async def get_service_info(request: Request, language: Language = "ru") -> ServiceInfoResponse:
    """Get general service information: name and description of the language (else of the
    default one), the contacts that are set."""
    settings = PagesSettings.of(request.app)
    lang = service.normalize_language(language)
    candidates = service.candidate_languages(lang, fallback=True)
    name = next(
        (settings.MINIAPP_SERVICE_NAME[c] for c in candidates if settings.MINIAPP_SERVICE_NAME.get(c)), None
    )
    description = next(
        (
            settings.MINIAPP_SERVICE_DESCRIPTION[c]
            for c in candidates
            if settings.MINIAPP_SERVICE_DESCRIPTION.get(c)
        ),
        None,
    )
    return ServiceInfoResponse(
        name=name or DEFAULT_SERVICE_NAME,
        description=description,
        support_email=settings.SERVICE_SUPPORT_EMAIL or None,
        support_messenger=settings.SERVICE_SUPPORT_MESSENGER or None,
        website=settings.SERVICE_WEBSITE_URL or None,
    )


@info.get("/cabinet/info/languages", public=True)
async def get_available_languages(request: Request) -> LanguagesResponse:
    """Get list of available languages."""
    codes = available(PagesSettings.of(request.app).AVAILABLE_LANGUAGES)
    return LanguagesResponse(languages=[describe(code) for code in codes], default=service.DEFAULT_LANGUAGE)


@info.get("/cabinet/info/user/language", responses={404: "User not found"})
async def get_user_language(session: AsyncSession, principal: Principal) -> UserLanguageResponse:
    """Get current user's language."""
    user = await get_user(session, principal.id)
    return UserLanguageResponse(language=user.language or service.DEFAULT_LANGUAGE)


@info.patch(
    "/cabinet/info/user/language",
    responses={400: "Invalid language. Supported: {languages}", 404: "User not found"},
)
async def update_user_language(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: Annotated[dict[str, str], Body(title="Request")],
) -> UserLanguageResponse:
    """Update user's language preference (one of the available languages, normalised)."""
    codes = available(PagesSettings.of(request.app).AVAILABLE_LANGUAGES)
    language = service.normalize_language(payload.get("language"))
    if not payload.get("language", "").strip() or language not in codes:
        raise HTTPError(400, f"Invalid language. Supported: {', '.join(codes)}")
    user = await get_user(session, principal.id, for_update=True)
    user = await update_user(request.app, session, user, UserUpdateRequest(language=language))
    return UserLanguageResponse(language=user.language)


@info.get("/cabinet/info/legal-consent", public=True)
async def get_legal_consent_config(
    request: Request, session: AsyncSession, language: Language = "ru"
) -> LegalConsentConfigResponse:
    """Нужны ли новому пользователю галочки «ознакомлен» и с чем именно (ключи документов)."""
    return await legal_consent_config(request.app, session, language)


@info.get("/cabinet/info/visibility", public=True)
async def get_info_visibility(request: Request, session: AsyncSession) -> InfoVisibilityResponse:
    """Which documents the cabinet shows: display mode ``web`` or ``both`` and, for the rules,
    policy, offer and terms, a text to show in the default language (the fallback of all)."""
    modes = await display_modes(request.app, session)
    shown = {document: mode.in_web for document, mode in modes.items()}
    for document in ("rules", "privacy", "offer", "recurrent"):
        if shown[document]:
            try:
                await documents.text(request.app, session, document, service.DEFAULT_LANGUAGE)
            except documents.NotShown:
                shown[document] = False
    return InfoVisibilityResponse(**shown)

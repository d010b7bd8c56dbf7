"""Legal consent of new cabinet accounts: which documents a new user must accept
(:func:`legal_consent_config`), and the record of what was accepted
(:func:`record_legal_consent`): one row per user, document and document version, the version
being the moment the document's text of the language was last saved."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc_pages import service
from subsvc_pages.cabinet_schemas import LegalConsentConfigResponse
from subsvc_pages.display import Document, display_modes
from subsvc_pages.models import LegalConsent, PrivacyPolicy, PublicOffer
from subsvc_pages.settings import PagesSettings

# The documents a new account accepts: key (as the cabinet sends it) -> (table, display mode).
CONSENT_DOCUMENTS: dict[str, tuple[type[PublicOffer] | type[PrivacyPolicy], Document]] = {
    "public_offer": (PublicOffer, "offer"),
    "privacy_policy": (PrivacyPolicy, "privacy"),
}
NO_STORED_TEXT = "none"  # the version of a document without a stored text


async def _shown(
    session: AsyncSession, model: type[PublicOffer] | type[PrivacyPolicy], language: str
) -> PublicOffer | PrivacyPolicy | None:
    """The document of the language (or the default one) when it is enabled and has text."""
    page = await service.find_rich_text(session, model, language, fallback=True)  # type: ignore[type-var]
    if page is None or not page.is_enabled or not page.content.strip():
        return None
    return page


async def legal_consent_config(
    app: Starlette, session: AsyncSession, language: str
) -> LegalConsentConfigResponse:
    """What a new account must accept for ``language``: with ``CABINET_REQUIRE_LEGAL_CONSENT``,
    the public offer and privacy policy that are enabled, have a text and are shown in the
    cabinet (``required`` is false when there is none); without it, nothing."""
    settings = PagesSettings.of(app)
    prechecked = settings.CABINET_LEGAL_CONSENT_PRECHECKED
    if not settings.CABINET_REQUIRE_LEGAL_CONSENT:
        return LegalConsentConfigResponse(required=False, prechecked=prechecked, documents=[])
    lang = service.normalize_language(language)
    modes = await display_modes(app, session)
    documents = [
        key
        for key, (model, document) in CONSENT_DOCUMENTS.items()
        if modes[document].in_web and await _shown(session, model, lang) is not None
    ]
    return LegalConsentConfigResponse(required=bool(documents), prechecked=prechecked, documents=documents)


async def record_legal_consent(
    session: AsyncSession,
    user_id: int,
    documents: Sequence[str],
    *,
    language: str = service.DEFAULT_LANGUAGE,
    source: str | None = None,
    ip_address: str | None = None,
) -> None:
    """Record that the user accepted these documents (keys of ``/legal-consent``; unknown keys
    are ignored) in their current version for ``language``. Idempotent: accepting a version
    again changes nothing. ``source`` (e.g. ``email``) and ``ip_address`` are kept as given."""
    lang = service.normalize_language(language)
    for key in dict.fromkeys(item.strip().lower() for item in documents):
        if key not in CONSENT_DOCUMENTS:
            continue
        model, _ = CONSENT_DOCUMENTS[key]
        page = await service.find_rich_text(session, model, lang, fallback=True)  # type: ignore[type-var]
        updated_at: datetime | None = page.updated_at if page is not None else None
        row = {
            "user_id": user_id,
            "document": key,
            "language": page.language if page is not None else lang,
            "version": updated_at.isoformat() if updated_at is not None else NO_STORED_TEXT,
            "document_updated_at": updated_at,
            "source": source,
            "ip_address": ip_address,
            "accepted_at": utcnow(),
        }
        statement = (
            service.dialect_insert(session, LegalConsent)
            .values(**row)
            .on_conflict_do_nothing(index_elements=["user_id", "document", "version"])
        )
        await session.exec(statement)

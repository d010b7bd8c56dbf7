"""Legal consent of new cabinet accounts (the pages plugin keeps the documents and the
record): a login or registration that makes an account must carry
``accepted_legal_documents`` covering what ``GET /cabinet/info/legal-consent`` requires, else
428 ``{code: "legal_consent_required", message, documents, missing, prechecked}``; what was
accepted is recorded with the method and the client's IP in the account's transaction."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_pages.api import legal_consent_config, record_legal_consent

from subsvc.api.errors import HTTPError
from subsvc.ratelimit import client_ip

CONSENT_REQUIRED = "legal_consent_required"
CONSENT_MESSAGE = "Please accept the legal documents to create an account"
CONSENT_RESPONSES = {428: f"{CONSENT_REQUIRED}: a new account must accept the listed legal documents"}


def _keys(accepted: Sequence[str] | None) -> list[str]:
    return [item.strip().lower() for item in accepted or () if item.strip()]


async def require_legal_consent(
    request: Request, session: AsyncSession, language: str | None, accepted: Sequence[str] | None
) -> None:
    """428 unless ``accepted`` covers every document a new account of ``language`` must accept."""
    config = await legal_consent_config(request.app, session, language or "ru")
    if not config.required:
        return
    given = set(_keys(accepted))
    missing = [key for key in config.documents if key not in given]
    if missing:
        detail = {
            "code": CONSENT_REQUIRED,
            "message": f"{CONSENT_MESSAGE}: {', '.join(missing)}",
            "documents": config.documents,
            "missing": missing,
            "prechecked": config.prechecked,
        }
        raise HTTPError(428, detail)


async def record_consent(
    request: Request,
    session: AsyncSession,
    user_id: int,
    accepted: Sequence[str] | None,
    *,
    language: str | None,
    source: str,
    ip_address: str | None = None,
) -> None:
    """Record the documents the new account accepted (nothing when none were sent), from
    ``ip_address`` (default: the request's client)."""
    keys = _keys(accepted)
    if keys:
        await record_legal_consent(
            session,
            user_id,
            keys,
            language=language or "ru",
            source=source,
            ip_address=ip_address or client_ip(request),
        )

"""The administrators' certificate screens (tag Cabinet Admin Overpay): its status, its
upload (multipart: ``file``, ``passphrase``) and its removal."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import File, Form, Router, UploadedFile
from subsvc.api.refusal import Refusal
from subsvc_pay_overpay import store
from subsvc_pay_overpay.schemas import OverpayCertificateStatusResponse, OverpayCertificateUploadResponse
from subsvc_pay_overpay.settings import OverpaySettings

router = Router(area="cabinet-admin", tag="Cabinet Admin Overpay")
NOT_CONFIGURED = "Overpay is not configured: set OVERPAY_USERNAME, OVERPAY_PASSWORD and OVERPAY_PROJECT_ID"
UNAVAILABLE = {503: "Overpay is not configured (its merchant settings unset), or the database is down"}


class OverpayRefusal(Refusal):
    """A refusal of the certificate screens (answered with its status and detail)."""


def configured(request: Request) -> OverpaySettings:
    """Overpay's settings, or 503 while its merchant settings are unset."""
    settings = OverpaySettings.of(request.app)
    if not settings.configured:
        raise OverpayRefusal(503, NOT_CONFIGURED)
    return settings


@router.get("/cabinet/admin/overpay/certificate", permission="settings:read", responses=UNAVAILABLE)
async def get_certificate_status(request: Request, session: AsyncSession) -> OverpayCertificateStatusResponse:
    """The client certificate Overpay requires: uploaded or not, valid (it opens with its
    passphrase and has not expired), its file (written again from the database if it differs)."""
    settings = configured(request)
    row = await store.current(session)
    store.sync_file(row, settings.certificate_path)
    return OverpayCertificateStatusResponse(
        uploaded=row is not None,
        valid=row is not None and store.opens(row, settings),
        path=str(settings.certificate_path),
        subject=row.subject if row else None,
        not_valid_after=row.not_valid_after.isoformat() if row else None,
        has_chain=row.has_chain if row else None,
        env_locked_path=settings.OVERPAY_P12_PATH is not None,
        env_locked_passphrase=settings.OVERPAY_P12_PASSPHRASE is not None,
    )


@router.post(
    "/cabinet/admin/overpay/certificate",
    permission="settings:edit",
    responses={
        400: "Not a client certificate: empty, unreadable, a wrong passphrase, no private key, or expired",
        **UNAVAILABLE,
    },
)
async def upload_certificate(
    request: Request,
    session: AsyncSession,
    file: Annotated[UploadedFile, File()],
    passphrase: Annotated[str, Form(max_length=255)] = "",
) -> OverpayCertificateUploadResponse:
    """Upload the client certificate (PKCS#12, or PEM with its private key): checked, kept in
    the database (replacing the previous one) and written to its file for use."""
    settings = configured(request)
    stored = await store.store(session, settings, file.data, passphrase, file.filename)
    return OverpayCertificateUploadResponse(
        subject=stored.row.subject,
        not_valid_after=stored.row.not_valid_after.isoformat(),
        has_chain=stored.row.has_chain,
        path=str(settings.certificate_path),
        env_locked_path=settings.OVERPAY_P12_PATH is not None,
        env_locked_passphrase=settings.OVERPAY_P12_PASSPHRASE is not None,
        warning=stored.certificate.warning(),
    )


@router.delete(
    "/cabinet/admin/overpay/certificate",
    status_code=204,
    permission="settings:edit",
    responses=UNAVAILABLE,
)
async def delete_certificate(request: Request, session: AsyncSession) -> None:
    """Remove the certificate from the database and its file (nothing to remove: 204 too)."""
    await store.remove(session, configured(request))

"""The certificate's row and its file: an upload replaces the row, and every instance writes
the file at the configured path from the row (after the upload's commit, at start, and when
its status is read), so all of them use the certificate the database holds."""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import once_after_commit, utcnow
from subsvc_pay_overpay.certificate import CertificateRefused, ClientCertificate, read_certificate
from subsvc_pay_overpay.models import THE_CERTIFICATE, OverpayCertificate
from subsvc_pay_overpay.settings import OverpaySettings

log = logging.getLogger("subsvc.pay_overpay")


@dataclass(frozen=True)
class Stored:
    """The row of an upload and the certificate it holds."""

    row: OverpayCertificate
    certificate: ClientCertificate


async def current(session: AsyncSession) -> OverpayCertificate | None:
    """The uploaded certificate's row, if any."""
    return await session.get(OverpayCertificate, THE_CERTIFICATE)


async def store(
    session: AsyncSession, settings: OverpaySettings, data: bytes, passphrase: str, filename: str | None
) -> Stored:
    """Check the upload (:class:`CertificateRefused`), then keep it as PKCS#12 encrypted with
    the passphrase the file is used with (the settings' when they fix one), replacing any
    earlier one; its file is written once the transaction commits."""
    certificate = read_certificate(data, passphrase or None)
    kept = None if settings.OVERPAY_P12_PASSPHRASE else (passphrase or None)
    row = await session.get(OverpayCertificate, THE_CERTIFICATE, with_for_update=True)
    if row is None:
        row = await _first(session, certificate)
    row.content = certificate.pkcs12(settings.OVERPAY_P12_PASSPHRASE or kept)
    row.passphrase = kept
    row.subject = certificate.subject
    row.not_valid_after = certificate.not_valid_after
    row.has_chain = certificate.has_chain
    row.filename = filename
    row.uploaded_at = utcnow()
    session.add(row)
    await session.flush()
    content, path = row.content, settings.certificate_path
    once_after_commit(session, "pay_overpay.certificate_file", lambda _: write_file(path, content))
    return Stored(row, certificate)


async def _first(session: AsyncSession, certificate: ClientCertificate) -> OverpayCertificate:
    """The row inserted for the first upload; when another first upload inserted it at the
    same time, that one (locked), to be updated."""
    row = OverpayCertificate(
        id=THE_CERTIFICATE,
        content=b"",
        subject=certificate.subject,
        not_valid_after=certificate.not_valid_after,
    )
    try:
        async with session.begin_nested():
            session.add(row)
            await session.flush()
    except IntegrityError:
        found = await session.get(
            OverpayCertificate, THE_CERTIFICATE, with_for_update=True, populate_existing=True
        )
        assert found is not None
        return found
    return row


async def remove(session: AsyncSession, settings: OverpaySettings) -> None:
    """Delete the certificate; its file goes once the transaction commits."""
    await session.exec(delete(OverpayCertificate).where(col(OverpayCertificate.id) == THE_CERTIFICATE))
    path = settings.certificate_path
    once_after_commit(session, "pay_overpay.certificate_file", lambda _: remove_file(path))


def opens(row: OverpayCertificate, settings: OverpaySettings) -> bool:
    """Whether the stored file opens with the passphrase it is used with and is still valid."""
    try:
        read_certificate(row.content, settings.OVERPAY_P12_PASSPHRASE or row.passphrase)
    except CertificateRefused:
        return False
    return True


def sync_file(row: OverpayCertificate | None, path: Path) -> None:
    """Make the file at ``path`` hold the row's certificate (or be absent without one)."""
    if row is None:
        remove_file(path)
    elif not path.is_file() or path.read_bytes() != row.content:
        write_file(path, row.content)


def write_file(path: Path, content: bytes) -> None:
    """Write the certificate readable by this process's user only (replaced atomically)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(content)
        os.replace(partial, path)
    except OSError as exc:
        log.error("the Overpay certificate could not be written to %s: %s", path, exc)


def remove_file(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()

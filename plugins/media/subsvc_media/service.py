"""Staging uploads through the messenger (the bot sends the file to the staging chat and the
messenger's file id is what is kept) and streaming them back."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.auth.principal import Principal
from subsvc.db.types import utcnow
from subsvc.messenger import FileDownload, MessengerError, MessengerUnavailable
from subsvc.services import services
from subsvc_media.checks import IMAGE_TYPES, MediaType, check, safe_filename
from subsvc_media.models import MediaUpload

log = logging.getLogger("subsvc.media")

NO_CHAT = "No chat configured for media uploads: set ADMIN_NOTIFICATIONS_CHAT_ID or ADMIN_IDS"
NOT_CONFIGURED = "The messenger is not configured (BOT_TOKEN): media cannot be uploaded or downloaded"
UNAVAILABLE = "The messenger is unavailable, try again later"
NOT_FOUND = "Media file not found"
INLINE_TYPES = {extension: content_type for content_type, extension in IMAGE_TYPES.items()} | {
    "jpeg": "image/jpeg"
}
SAFE_HEADERS = {
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; img-src 'self' data:; sandbox",
}


class MediaUnavailable(Exception):
    """Media cannot be staged or fetched now (no staging chat, no bot, messenger down): 503."""


class MessengerRefused(Exception):
    """The messenger refused the call: 502 with its reason."""


class MediaNotFound(Exception):
    """The messenger does not know the file (or it can no longer be downloaded): 404."""


@dataclass(frozen=True)
class Staged:
    """A file the messenger now holds."""

    media_type: MediaType
    file_id: str
    file_unique_id: str | None


async def stage(
    app: Starlette,
    session: AsyncSession,
    uploader: Principal,
    kind: MediaType,
    data: bytes,
    *,
    filename: str | None,
    content_type: str | None,
    caption: str | None = None,
    silent: bool = False,
) -> Staged:
    """Check the file, send it to the staging chat (``silent``: without a notification, and
    the staging message deleted after), and record the upload with its uploader."""
    check(kind, data, filename, content_type)
    chat_id = services(app).settings.admin_chat_id
    if chat_id is None:
        raise MediaUnavailable(NO_CHAT)
    messenger = services(app).messenger
    if not messenger.configured:
        raise MediaUnavailable(NOT_CONFIGURED)
    name = safe_filename(filename, fallback=kind)
    try:
        message = await messenger.send_media_file(
            chat_id, kind, name, data, caption=caption, disable_notification=silent
        )
    except MessengerError as exc:
        raise _failure(exc, "upload") from None
    staged = _file_of(message, kind)
    if silent:
        await _delete_quietly(app, chat_id, message.get("message_id"))
    await _record(session, staged, uploader, len(data))
    return staged


async def open_download(app: Starlette, file_id: str) -> tuple[FileDownload, str]:
    """Start downloading a staged file: the stream and the messenger's file path."""
    messenger = services(app).messenger
    if not messenger.configured:
        raise MediaUnavailable(NOT_CONFIGURED)
    try:
        found = await messenger.get_file(file_id)
    except MessengerError as exc:
        if exc.error_code == 400:  # unknown or malformed file id
            raise MediaNotFound(NOT_FOUND) from None
        raise _failure(exc, "download") from None
    path = found.get("file_path") if isinstance(found, dict) else None
    if not isinstance(path, str) or not path:
        raise MediaNotFound(NOT_FOUND)
    try:
        download = await messenger.open_file(path)
    except MessengerError as exc:
        if exc.error_code in (400, 404):
            raise MediaNotFound(NOT_FOUND) from None
        raise _failure(exc, "download") from None
    return download, path


def download_headers(path: str, size: int | None) -> tuple[str, dict[str, str]]:
    """The media type and headers of a download: only images are shown inline (by the file's
    extension), everything else is an attachment of no particular type."""
    name = safe_filename(path)
    extension = name.rpartition(".")[2].lower() if "." in name else ""
    content_type = INLINE_TYPES.get(extension)
    disposition = "inline" if content_type else "attachment"
    headers = {**SAFE_HEADERS, "Content-Disposition": f'{disposition}; filename="{name}"'}
    if size is not None:
        headers["Content-Length"] = str(size)
    return content_type or "application/octet-stream", headers


def _failure(exc: MessengerError, what: str) -> Exception:
    log.warning("media: %s failed: %s", what, exc.description)
    if isinstance(exc, MessengerUnavailable) or exc.error_code == 429 or not exc.error_code:
        return MediaUnavailable(UNAVAILABLE)
    return MessengerRefused(f"The messenger refused the {what}: {exc.description}")


def _file_of(message: dict[str, object], kind: MediaType) -> Staged:
    """The file the messenger made of an upload: the largest photo size, else the video or
    document (the messenger may file an upload under another kind, e.g. a GIF as animation)."""
    photos = message.get("photo")
    candidates: list[object] = [photos[-1]] if isinstance(photos, list) and photos else []
    candidates += [message.get(key) for key in ("video", "document", "animation")]
    for found in candidates:
        if isinstance(found, dict) and isinstance(found.get("file_id"), str):
            unique = found.get("file_unique_id")
            return Staged(kind, found["file_id"], unique if isinstance(unique, str) else None)
    raise MessengerRefused("The messenger did not return the uploaded file")


async def _delete_quietly(app: Starlette, chat_id: int | str, message_id: object) -> None:
    if not isinstance(message_id, int):
        return
    try:
        await services(app).messenger.delete_message(chat_id, message_id)
    except MessengerError as exc:  # the file id stays valid; the message is left in the chat
        log.info("media: staging message %s not deleted: %s", message_id, exc.description)


async def _record(session: AsyncSession, staged: Staged, uploader: Principal, size: int) -> None:
    """One row per file id (the first uploader keeps it)."""
    values = {
        "file_id": staged.file_id,
        "file_unique_id": staged.file_unique_id,
        "media_type": staged.media_type,
        "uploader_user_id": uploader.id if uploader.kind == "user" else None,
        "uploader_token_id": uploader.id if uploader.kind == "api_token" else None,
        "size": size,
        "created_at": utcnow(),
    }
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    table = MediaUpload.__table__  # type: ignore[attr-defined]
    await session.exec(
        dialect.insert(table).values(values).on_conflict_do_nothing(index_elements=["file_id"])
    )

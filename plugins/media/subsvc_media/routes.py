"""Uploads staged through the messenger and their downloads: the Web API (tag `media`) and
the cabinet (tag "Cabinet Media"; its download needs no JWT, a signed token instead)."""

from __future__ import annotations

import re
from typing import Annotated, TypeVar
from urllib.parse import quote

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from subsvc_users.api import get_user

from subsvc.api import File, Form, HTTPError, Query, Router, UploadedFile
from subsvc.auth.principal import Principal
from subsvc_media import service
from subsvc_media.api import MEDIA_TYPES, download_url
from subsvc_media.checks import MAX_FILE_BYTES, UNSUPPORTED, MediaType
from subsvc_media.schemas import CabinetMediaUploadResponse, MediaUploadResponse
from subsvc_media.tokens import verify

Answer = TypeVar("Answer", MediaUploadResponse, CabinetMediaUploadResponse)
web = Router(area="web", tag="media")
cabinet = Router(area="cabinet", tag="Cabinet Media", prefix="/cabinet/media")

# the whole form: the file at its limit and the multipart framing and other fields around it
MAX_FORM_BYTES = MAX_FILE_BYTES + 64 * 1024
FILE_ID = re.compile(r"^[A-Za-z0-9_-]{16,256}$")
UPLOAD_ANSWERS = {
    400: "Unsupported media type, empty, too large (10 MiB), not a JPEG/PNG/GIF/WebP photo, "
    "or active content (HTML, SVG, XML, JavaScript) refused",
    413: f"The form is larger than {MAX_FORM_BYTES} bytes",
    502: "The messenger refused the upload",
    503: "No staging chat (ADMIN_NOTIFICATIONS_CHAT_ID / ADMIN_IDS), no bot, or the messenger unavailable",
}
DOWNLOAD_ANSWERS = {
    200: "The file's bytes (images inline, anything else as an attachment)",
    404: service.NOT_FOUND,
    502: "The messenger refused the download",
    503: "No bot, or the messenger unavailable",
}


def _media_type(value: str, refusal: str) -> MediaType:
    kind = value.strip().lower()
    if kind not in MEDIA_TYPES:
        raise HTTPError(400, refusal)
    return kind  # type: ignore[return-value]


def _media_path(request: Request, file_id: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/media/{quote(file_id, safe='')}"


async def _stage(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    kind: MediaType,
    file: UploadedFile,
    *,
    caption: str | None = None,
    silent: bool = False,
) -> service.Staged:
    """The uploaded ``file`` staged through the messenger (:func:`service.stage`)."""
    return await service.stage(
        request.app,
        session,
        principal,
        kind,
        file.data,
        filename=file.filename,
        content_type=file.content_type,
        caption=caption,
        silent=silent,
    )


def _answer(model: type[Answer], staged: service.Staged, media_url: str) -> Answer:
    """An upload's answer (both areas answer the same fields, their download link aside)."""
    return model(
        media_type=staged.media_type,
        file_id=staged.file_id,
        file_unique_id=staged.file_unique_id,
        media_url=media_url,
    )


async def _stream(request: Request, file_id: str) -> Response:
    download, path = await service.open_download(request.app, file_id)
    media_type, headers = service.download_headers(path, download.size)
    return StreamingResponse(download.chunks(), media_type=media_type, headers=headers)


@web.post(
    "/upload", status_code=201, name="upload_media", responses=UPLOAD_ANSWERS, max_body_bytes=MAX_FORM_BYTES
)
async def upload_media(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    file: Annotated[UploadedFile, File()],
    media_type: Annotated[
        str, Form(max_length=32, description="Тип файла: photo, video или document")
    ] = "document",
    caption: Annotated[
        str | None, Form(max_length=1024, description="Необязательная подпись к файлу")
    ] = None,
) -> MediaUploadResponse:
    """Stage a file (at most 10 MiB) through the messenger: the bot sends it to the staging
    chat (administrators see it there) and the messenger's file id is answered."""
    kind = _media_type(media_type, UNSUPPORTED)
    staged = await _stage(request, session, principal, kind, file, caption=caption or None)
    return _answer(MediaUploadResponse, staged, _media_path(request, staged.file_id))


@web.get("/media/{file_id}", name="download_media", response_model=None, responses=DOWNLOAD_ANSWERS)
async def download_media(request: Request, file_id: str) -> Response:
    """A staged file's bytes, streamed from the messenger."""
    return await _stream(request, file_id)


@cabinet.post(
    "/upload", status_code=201, name="upload_media", responses=UPLOAD_ANSWERS, max_body_bytes=MAX_FORM_BYTES
)
async def cabinet_upload_media(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    file: Annotated[UploadedFile, File()],
    media_type: Annotated[
        str, Form(max_length=32, description="File type: photo, video, or document")
    ] = "photo",
) -> CabinetMediaUploadResponse:
    """Upload media file for use in ticket messages.
    Returns file_id that can be used when creating ticket or adding message."""
    kind = _media_type(media_type, f"{UNSUPPORTED}. Allowed: {', '.join(MEDIA_TYPES)}")
    try:
        await get_user(session, principal.id)  # the upload is recorded as theirs
    except HTTPError:
        raise HTTPError(401, "User not found") from None
    staged = await _stage(request, session, principal, kind, file, silent=True)
    return _answer(CabinetMediaUploadResponse, staged, download_url(request, staged.file_id))


@cabinet.get(
    "/{file_id}",
    name="cabinet_download_media",
    public=True,
    response_model=None,
    responses=DOWNLOAD_ANSWERS,
)
async def cabinet_download_media(
    request: Request,
    file_id: str,
    token: Annotated[str, Query(description="Signed access token from the ticket response")] = "",
) -> Response:
    """Download media file by file_id.
    Used to display images/documents in ticket messages. No JWT: the signed token (24 hours)
    is the credential; any invalid id or token is 404."""
    if not FILE_ID.match(file_id) or not verify(request.app, file_id, token):
        raise HTTPError(404, service.NOT_FOUND)
    return await _stream(request, file_id)

"""What other plugins may use of `media`: download tokens and URLs for staged files, and the
check that the files a message refers to were uploaded by its author."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from urllib.parse import quote

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request

from subsvc_media.models import MediaUpload
from subsvc_media.tokens import sign

MEDIA_TYPES = ("photo", "video", "document")

__all__ = ["MEDIA_TYPES", "download_token", "download_url", "unattachable"]


def download_token(app: Starlette, file_id: str, *, now: datetime | None = None) -> str:
    """A signed token (``"<exp>.<hex>"``) letting its holder download ``file_id`` from the
    cabinet for 24 hours."""
    return sign(app, file_id, now=now)


def download_url(request: Request, file_id: str) -> str:
    """The absolute URL of the cabinet download of ``file_id``, with a fresh token."""
    base = str(request.base_url).rstrip("/")
    token = download_token(request.app, file_id)
    return f"{base}/cabinet/media/{quote(file_id, safe='')}?token={token}"


async def unattachable(
    session: AsyncSession,
    file_ids: Collection[str],
    *,
    user_id: int | None = None,
    token_id: int | None = None,
) -> list[str]:
    """The ids of ``file_ids`` (in their order, without repeats) that the given uploader — a
    cabinet user or an API token — did not upload: unknown files, other uploaders' files."""
    wanted = list(dict.fromkeys(file_ids))
    if not wanted:
        return []
    if user_id is None and token_id is None:
        return wanted
    query = select(MediaUpload.file_id).where(MediaUpload.file_id.in_(wanted))  # type: ignore[attr-defined]
    if user_id is not None:
        query = query.where(MediaUpload.uploader_user_id == user_id)
    else:
        query = query.where(MediaUpload.uploader_token_id == token_id)
    owned = set((await session.exec(query)).all())
    return [file_id for file_id in wanted if file_id not in owned]

"""What tickets asks of support (the mode gate) and media (attachment ownership, tokens)."""

from __future__ import annotations

from urllib.parse import quote

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request
from subsvc_media.api import download_token, unattachable
from subsvc_support.api import support_config

from subsvc_tickets.service import Content, TicketError

TICKETS_DISABLED = "Support tickets are disabled"


async def require_tickets_enabled(app: Starlette) -> None:
    """403 'Support tickets are disabled' in support's ``contact`` mode."""
    if not (await support_config(app)).tickets_enabled:
        raise TicketError(403, TICKETS_DISABLED)


async def check_attachable(
    session: AsyncSession, content: Content, *, user_id: int | None = None, token_id: int | None = None
) -> None:
    """400 naming the file ids of ``content`` this uploader (cabinet user or API token) did not upload."""
    ids = content.file_ids()
    if not ids:
        return
    foreign = await unattachable(session, ids, user_id=user_id, token_id=token_id)
    if foreign:
        raise TicketError(400, f"Unknown media file: {', '.join(foreign)} (upload it first)")


def token_for(app: Starlette, file_id: str | None) -> str | None:
    return download_token(app, file_id) if file_id else None


def web_media_url(request: Request, file_id: str) -> str:
    """The absolute URL of the Web API's ``GET /media/{file_id}``."""
    return f"{str(request.base_url).rstrip('/')}/media/{quote(file_id, safe='')}"

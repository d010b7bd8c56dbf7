"""Account merge, media's part (``cabinet_account_merging``): the removed user's uploads become
the kept user's, so the files stay attachable by the account that remains."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_media.models import MediaUpload

UPLOADS = MediaUpload.__table__  # type: ignore[attr-defined]


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """media's part of an account merge (see the module's text)."""
    await reassign(session, UPLOADS.c.uploader_user_id, kept_user_id, removed_user_id)

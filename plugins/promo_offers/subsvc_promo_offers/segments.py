"""What the plugin takes from the segments plugin: a segment's members, and the rule of who the
bot can write to."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_segments.api import iter_recipients, reachable_conditions, resolve

__all__ = ["reachable_conditions", "segment_user_ids"]


async def segment_user_ids(app: Starlette, session: AsyncSession, target: str) -> list[int]:
    """The user ids of the segment's members, ascending (none for an unknown segment)."""
    segment = resolve(app, target)
    if segment is None:
        return []
    pages = iter_recipients(app, segment, session=session)
    return [recipient.user_id async for page in pages for recipient in page]

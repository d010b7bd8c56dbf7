"""The members of a ``target`` segment, from the segments plugin."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession


async def segment_user_ids(session: AsyncSession, target: str) -> list[int]:
    """The user ids of the segment's members (none for an unknown segment)."""
    raise NotImplementedError("waiting for the segments plugin")  # TEMPORARY

"""What the plugin takes from the segments plugin: a segment's members, and the rule of who the
bot can write to."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_segments.api import count_recipients, iter_recipients, reachable_conditions, resolve

__all__ = ["COUNTED", "reachable_conditions", "segment_counts", "segment_user_ids"]

COUNTED = (
    "all",
    "active",
    "trial",
    "trial_ending",
    "expiring",
    "expired",
    "zero",
    "autopay_failed",
    "low_balance",
    "inactive_30d",
    "inactive_60d",
    "inactive_90d",
    "custom_today",
    "custom_week",
    "custom_month",
    "custom_active_today",
)
"""The segments ``GET /segments`` counts, as the reference lists them."""


async def segment_user_ids(app: Starlette, session: AsyncSession, target: str) -> list[int]:
    """The user ids of the segment's members, ascending (none for an unknown segment)."""
    segment = resolve(app, target)
    if segment is None:
        return []
    pages = iter_recipients(app, segment, session=session)
    return [recipient.user_id async for page in pages for recipient in page]


async def segment_counts(app: Starlette, session: AsyncSession) -> list[tuple[str, int]]:
    """How many users each of :data:`COUNTED` holds now: the offers a broadcast to it would
    create (one COUNT each, in this session's snapshot)."""
    counts = []
    for key in COUNTED:
        segment = resolve(app, key)
        counts.append((key, 0 if segment is None else await count_recipients(app, segment, session=session)))
    return counts

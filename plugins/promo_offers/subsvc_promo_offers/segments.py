"""What the plugin takes from the segments plugin: a segment's members, and who of them the bot
can write to."""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy import ColumnElement
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_segments.recipients import iter_recipients, resolve
from subsvc_segments.settings import SegmentSettings
from subsvc_users.models import User

USERS = User.__table__


async def segment_user_ids(app: Starlette, session: AsyncSession, target: str) -> list[int]:
    """The user ids of the segment's members, ascending (none for an unknown segment)."""
    segment = resolve(app, target)
    if segment is None:
        return []
    return [
        recipient.user_id
        async for page in iter_recipients(app, segment, session=session)
        for recipient in page
    ]


def reachable(app: Starlette, now: datetime) -> list[ColumnElement[bool]]:
    """The conditions on ``users`` of a messenger recipient, as the segments plugin has them: a
    messenger id, and no refusal of the bot within ``SEGMENTS_BLOCKED_SKIP_DAYS``."""
    settings: SegmentSettings = app.state.settings_of["segments"]
    conditions: list[ColumnElement[bool]] = [USERS.c.messenger_id.is_not(None)]
    if settings.SEGMENTS_BLOCKED_SKIP_DAYS > 0:
        since = now - timedelta(days=settings.SEGMENTS_BLOCKED_SKIP_DAYS)
        blocked = USERS.c.messenger_blocked_at
        conditions.append(sa.or_(blocked.is_(None), blocked < since))
    return conditions

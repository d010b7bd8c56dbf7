"""First-touch campaign attribution: the ``campaign_slug`` a new account arrived with, kept
per user (the first one wins) until the campaigns plugin (issue 22) takes it from
:func:`first_campaign`."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_cabinet_auth.models import FirstCampaign


async def record_first_campaign(session: AsyncSession, user_id: int, slug: str | None, source: str) -> bool:
    """Remember ``slug`` as the user's first campaign unless one is already known (in the
    caller's transaction); whether it was recorded."""
    if not slug:
        return False
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = (
        insert(FirstCampaign)
        .values(user_id=user_id, campaign_slug=slug, source=source, created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["user_id"])
    )
    result = await session.exec(statement)
    return bool(result.rowcount)


async def first_campaign(session: AsyncSession, user_id: int) -> FirstCampaign | None:
    """The campaign the user first came from (slug, the login method, when), if any."""
    query = select(FirstCampaign).where(col(FirstCampaign.user_id) == user_id)
    return (await session.exec(query)).first()

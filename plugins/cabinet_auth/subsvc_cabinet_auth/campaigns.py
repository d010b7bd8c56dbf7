"""First-touch campaign attribution: the ``campaign_slug`` a new account arrived with, kept
per user (the first one wins); the campaigns plugin reads it with :func:`first_campaign`,
told by the ``user.created`` event or, for an account made before its slug was recorded (the
deep-link login), by :data:`FIRST_CAMPAIGN_RECORDED`."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc_cabinet_auth.models import FirstCampaign

FIRST_CAMPAIGN_RECORDED = "cabinet.first_campaign_recorded"


class FirstCampaignRecorded(BaseModel):
    """Event ``cabinet.first_campaign_recorded``: a user's first campaign became known."""

    user_id: int
    campaign_slug: str
    source: str


async def record_first_campaign(
    session: AsyncSession, user_id: int, slug: str | None, source: str, *, events: EventBus | None = None
) -> bool:
    """Remember ``slug`` as the user's first campaign unless one is already known (in the
    caller's transaction); whether it was recorded. With ``events``, a recording publishes
    :data:`FIRST_CAMPAIGN_RECORDED` in the same transaction."""
    if not slug:
        return False
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = (
        insert(FirstCampaign)
        .values(user_id=user_id, campaign_slug=slug, source=source, created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["user_id"])
    )
    recorded = bool((await session.exec(statement)).rowcount)
    if recorded and events is not None:
        payload = FirstCampaignRecorded(user_id=user_id, campaign_slug=slug, source=source)
        events.publish(session, FIRST_CAMPAIGN_RECORDED, payload)
    return recorded


async def first_campaign(session: AsyncSession, user_id: int) -> FirstCampaign | None:
    """The campaign the user first came from (slug, the login method, when), if any."""
    query = select(FirstCampaign).where(col(FirstCampaign.user_id) == user_id)
    return (await session.exec(query)).first()

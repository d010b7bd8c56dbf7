"""The plugin's background job: old clicks are deleted, in batches, every hour."""

from __future__ import annotations

import logging
from datetime import timedelta

from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.jobs import Job
from subsvc.services import services
from subsvc_menus import clicks
from subsvc_menus.settings import MenusSettings

PRUNE_JOB = "menus.prune_clicks"
log = logging.getLogger("subsvc.menus")


async def prune_clicks(app: Starlette) -> None:
    """Delete the clicks older than ``MENUS_CLICKS_KEEP_DAYS`` (each batch its own
    transaction, so no lock is held long)."""
    days = MenusSettings.of(app).MENUS_CLICKS_KEEP_DAYS
    if not days:
        return
    before = utcnow() - timedelta(days=days)
    deleted = 0
    while True:
        async with services(app).db.session() as session:
            count = await clicks.prune(session, before)
            await session.commit()
        deleted += count
        if count < clicks.PRUNE_BATCH:
            break
    if deleted:
        log.info("deleted %d menu clicks older than %d days", deleted, days)


JOBS = [Job(PRUNE_JOB, prune_clicks, every=3600)]

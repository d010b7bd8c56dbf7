"""Promo offers' runtime hooks: seed the default templates at start."""

from __future__ import annotations

import logging

from starlette.applications import Starlette

from subsvc.db import is_database_unavailable
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_promo_offers import templates

log = logging.getLogger("subsvc.promo_offers")


@hookimpl
async def startup(app: Starlette) -> None:
    """Ensure the default templates exist (the upkeep job tries again when the database is down now)."""
    try:
        async with services(app).db.session() as session:
            await templates.ensure_default_templates(session)
            await session.commit()
    except Exception as exc:
        if not is_database_unavailable(exc):
            raise
        log.warning("database unavailable at start: the promo offer templates are seeded by the upkeep job")

"""What other plugins may use of `support`: the support configuration, read from a
per-instance cache, and changing it."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_support import store
from subsvc_support.changes import SupportChanges
from subsvc_support.config import MODES, SupportConfig, SupportMode
from subsvc_support.models import ROW_ID

__all__ = ["MODES", "SupportConfig", "SupportMode", "support_config", "update_support_config"]


async def support_config(app: Starlette) -> SupportConfig:
    """The configuration now: from this instance's memory, else read (in a session of its own)."""
    return await store.CONFIG.get(app)


async def update_support_config(session: AsyncSession, app: Starlette, **changes: Any) -> SupportConfig:
    """Store ``changes`` (fields of :class:`SupportConfig`; ``None`` keeps a value) in
    ``session``'s transaction; once it commits, every instance reads the new configuration.
    Returns the configuration as this transaction sees it. Raises ``pydantic.ValidationError``
    for an unknown field or a value out of its range."""
    values = SupportChanges.model_validate(changes).values()
    return await store.CONFIG.write(app, session, store.TABLE, {"id": ROW_ID}, values)

"""Account merge, addons' part (``cabinet_account_merging``): the removed user's device names
become the kept user's, except those of a device the kept user named too (theirs stays)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_addons.models import DeviceName

NAMES: sa.Table = DeviceName.__table__  # type: ignore[attr-defined]


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """addons' part of an account merge (see the module's text)."""
    await reassign(session, NAMES.c.user_id, kept_user_id, removed_user_id, unique=(NAMES.c.hwid,))

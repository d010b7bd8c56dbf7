"""Account merge, rbac's part (``cabinet_account_merging``): the removed user's role
assignments are deleted, not moved (a merge must not raise anybody's privileges; an
administrator assigns the kept user what it should hold). The audit log keeps the ids of who
acted, as it does for deleted users."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import drop_rows
from subsvc_rbac.models import UserRole


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, removed_user_id: int) -> None:
    """rbac's part of an account merge (see the module's text)."""
    await drop_rows(session, UserRole.__table__.c.user_id, removed_user_id)  # type: ignore[attr-defined]

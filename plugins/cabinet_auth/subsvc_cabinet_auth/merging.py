"""Account merge, cabinet_auth's part (``cabinet_account_merging``): both users' sessions end.
The kept user's refresh tokens are revoked (the merge answers a fresh session); the removed
user's refresh tokens and deep-link logins are deleted (a deleted user has no session)."""

from __future__ import annotations

from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import drop_rows
from subsvc_cabinet_auth.models import CabinetRefreshToken, DeepLinkToken
from subsvc_cabinet_auth.sessions import revoke_all


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """cabinet_auth's part of an account merge (see the module's text)."""
    await revoke_all(session, kept_user_id)
    for model in (CabinetRefreshToken, DeepLinkToken):
        await drop_rows(session, SQLModel.metadata.tables[model.__tablename__].c.user_id, removed_user_id)

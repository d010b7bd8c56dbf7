"""Account merge, cabinet_auth's part (``cabinet_account_merging``): both users' sessions end.
The kept user's refresh tokens are revoked (the merge answers a fresh session); the removed
user's refresh tokens and deep-link logins are deleted (a deleted user has no session). The
first campaign stays the kept user's; the removed user's moves over when the kept one has none."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import drop_rows
from subsvc_cabinet_auth.models import CabinetRefreshToken, DeepLinkToken, FirstCampaign
from subsvc_cabinet_auth.sessions import revoke_all


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """cabinet_auth's part of an account merge (see the module's text)."""
    await revoke_all(session, kept_user_id)
    for model in (CabinetRefreshToken, DeepLinkToken):
        await drop_rows(session, SQLModel.metadata.tables[model.__tablename__].c.user_id, removed_user_id)
    kept = (
        await session.exec(select(FirstCampaign).where(col(FirstCampaign.user_id) == kept_user_id))
    ).first()
    if kept is None:
        await session.exec(
            update(FirstCampaign)
            .where(col(FirstCampaign.user_id) == removed_user_id)
            .values(user_id=kept_user_id)
            .execution_options(synchronize_session=False)
        )
    await drop_rows(session, SQLModel.metadata.tables[FirstCampaign.__tablename__].c.user_id, removed_user_id)

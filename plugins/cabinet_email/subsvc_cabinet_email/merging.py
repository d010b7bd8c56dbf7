"""Account merge, cabinet_email's part (``cabinet_account_merging``): the removed user's
e-mail tokens (verification, password reset, e-mail change) are deleted; a token names the
account it was issued for, and that account is gone (its e-mail, if it moves, moves verified
or not as it was)."""

from __future__ import annotations

from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import drop_rows
from subsvc_cabinet_email.models import EmailToken


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, removed_user_id: int) -> None:
    """cabinet_email's part of an account merge (see the module's text)."""
    tokens = SQLModel.metadata.tables[EmailToken.__tablename__]
    await drop_rows(session, tokens.c.user_id, removed_user_id)

"""Account merge, promocodes' part (``cabinet_account_merging``): the removed user's
activations become the kept user's, except a code both activated (the kept user's activation
stays, the other is dropped: a code is used once per user); the removed user's pending
discount moves when the kept user has none (one per user: the kept user's wins); codes the
removed user created name the kept user as their author."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_promocodes.models import CODES, DISCOUNTS, USES


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """promocodes' part of an account merge (see the module's text)."""
    await reassign(session, USES.c.user_id, kept_user_id, removed_user_id, unique=(USES.c.promocode_id,))
    await reassign(session, DISCOUNTS.c.user_id, kept_user_id, removed_user_id, unique=())
    await reassign(session, CODES.c.created_by, kept_user_id, removed_user_id)

"""Account merge, sales' part (``cabinet_account_merging``): the removed user's carts become
the kept user's, except a cart of a subscription the kept user has one for (theirs stays); a
trial taken by either counts as the kept user's (the kept user's row stays)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_sales.models import SalesCart, SalesTrial

CARTS: sa.Table = SalesCart.__table__  # type: ignore[attr-defined]
TRIALS: sa.Table = SalesTrial.__table__  # type: ignore[attr-defined]


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """sales' part of an account merge (see the module's text)."""
    await reassign(
        session, CARTS.c.user_id, kept_user_id, removed_user_id, unique=(CARTS.c.subscription_key,)
    )

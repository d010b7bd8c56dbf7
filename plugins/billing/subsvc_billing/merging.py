"""Account merge, billing's part (``cabinet_account_merging``): the removed user's whole
balance moves to the kept user through :func:`~subsvc_billing.service.transfer_balance` (a
withdrawal and a deposit, method ``balance``, keyed by the removed user's id, so it happens
once), then every transaction of the removed user, those two included, becomes the kept
user's: the kept user's history adds up to its balance as both did before."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc.services import services
from subsvc_billing.service import TRANSACTIONS, transfer_balance


@hookimpl(optionalhook=True)
async def cabinet_account_merging(
    app: Starlette, session: AsyncSession, kept_user_id: int, removed_user_id: int
) -> dict[str, Any]:
    """Billing's part of an account merge (see the module's text)."""
    moved = await transfer_balance(
        session,
        services(app).events,
        removed_user_id,
        kept_user_id,
        key=f"account-merge:{removed_user_id}",
        description=f"Account merge: balance of user {removed_user_id} moved to user {kept_user_id}",
    )
    await reassign(session, TRANSACTIONS.c.user_id, kept_user_id, removed_user_id)
    return {"moved_balance_kopeks": moved}

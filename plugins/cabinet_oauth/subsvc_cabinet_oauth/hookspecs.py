"""Extension points of the cabinet_oauth plugin, for the plugins that keep rows of users."""

from __future__ import annotations

from collections.abc import Awaitable

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookspec


@hookspec
def cabinet_account_merging(
    app: Starlette, session: AsyncSession, primary_user_id: int, secondary_user_id: int
) -> Awaitable[None] | None:
    """Move (or drop) the plugin's rows of ``secondary_user_id`` to ``primary_user_id``
    before the secondary user is marked deleted; may return an awaitable.

    Called inside the merge's transaction, after identities, e-mail, balance, subscriptions,
    transactions and referrals have moved: whatever the implementation changes in
    ``session`` commits with the merge or not at all. Grants should be dropped rather than
    moved (a merge must not raise anybody's privileges). Raise to refuse the merge.
    """

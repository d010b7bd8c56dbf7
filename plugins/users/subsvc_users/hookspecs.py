"""Extension points of the users plugin, for the plugins that build on it."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookspec


@hookspec
def user_record_extras(  # type: ignore[empty-body]
    session: AsyncSession, user_ids: Sequence[int]
) -> Awaitable[dict[int, dict[str, Any]]]:
    """Return (an awaitable of) extra fields of the user record for each of ``user_ids``:
    ``{user_id: {"subscription": {...} | None, "subscriptions": [...]}}``.

    Called once per response with every user on the page, so implementations load what they
    need in one query. The users plugin merges the dicts of every implementation into the
    records (``UserResponse`` declares the fields; absent ones take their defaults).
    """

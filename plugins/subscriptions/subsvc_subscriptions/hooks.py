"""Subscriptions' implementations of the `users` extension points: the user record's extras."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import RecordColumns

from subsvc.hookspecs import hookimpl
from subsvc_subscriptions import service


@hookimpl
def user_record_extras(
    session: AsyncSession, user_ids: Sequence[int], rows: Sequence[Mapping[str, Any]]
) -> Awaitable[dict[int, dict[str, Any]]]:
    """The user record's ``subscription`` and ``subscriptions``, for a whole page at once."""
    return service.record_extras(session, user_ids, rows)


@hookimpl
def user_record_columns() -> RecordColumns:
    """On PostgreSQL the subscriptions are read with the records themselves."""
    return service.record_columns

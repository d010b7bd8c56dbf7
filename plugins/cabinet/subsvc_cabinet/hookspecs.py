"""Extension points of the cabinet plugin, for the plugins that sell subscriptions."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookspec


@hookspec
def cabinet_subscription_extras(  # type: ignore[empty-body]
    app: Starlette, session: AsyncSession, items: Sequence[Mapping[str, Any]]
) -> Awaitable[Mapping[int, Mapping[str, Any]]]:
    """Return (an awaitable of) fields of the cabinet's subscription view that your plugin
    knows, per subscription id: ``{subscription_id: {"tariff_name": ..., ...}}``.

    ``items`` are the subscriptions shown (their columns and ``actual_status``), all of one
    response: load what you need in one query. The answers of every implementation are
    merged over the cabinet's own fields (names of :class:`subsvc_cabinet.api.SubscriptionData`;
    others are ignored).
    """

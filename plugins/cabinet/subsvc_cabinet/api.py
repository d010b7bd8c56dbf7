"""What other plugins may use of the cabinet plugin (the rest is private).

- :class:`SubscriptionData` and :class:`SubscriptionStatusResponse`: the cabinet's view of a
  subscription, which the selling plugins answer with too.
- :func:`subscription_views`: that view of several subscriptions, with the fields the
  ``cabinet_subscription_extras`` implementations add (:mod:`subsvc_cabinet.hookspecs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_cabinet import service
from subsvc_cabinet.schemas import SubscriptionData, SubscriptionStatusResponse

__all__ = ["SubscriptionData", "SubscriptionStatusResponse", "subscription_views"]


async def subscription_views(
    app: Starlette, session: AsyncSession, items: Sequence[Mapping[str, Any]]
) -> list[SubscriptionData]:
    """The cabinet's view of ``items`` (subscription columns with ``actual_status``), in
    their order, the extras of every ``cabinet_subscription_extras`` implementation merged."""
    return await service.views(app, session, items)

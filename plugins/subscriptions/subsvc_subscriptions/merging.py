"""Account merge, the subscriptions' part (``cabinet_account_merging``): every subscription of
the removed user becomes the kept user's. When both have a live one (active or trial, not
past its end), the one of the user named by ``keep_subscription_from`` stays live and the
other is disabled first (``subscription.disabled`` published)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_subscriptions import service
from subsvc_subscriptions.models import Subscription


def _live(subscription: Subscription | None) -> bool:
    if subscription is None:
        return False
    return service.actual_status(subscription.status, subscription.end_date, utcnow()) in service.LIVE


@hookimpl(optionalhook=True)
async def cabinet_account_merging(
    app: Starlette,
    session: AsyncSession,
    kept_user_id: int,
    removed_user_id: int,
    keep_subscription_from: int,
) -> dict[str, Any]:
    """The subscriptions' part of an account merge (see the module's text)."""
    mine = await service.primary_of(session, kept_user_id, for_update=True)
    theirs = await service.primary_of(session, removed_user_id, for_update=True)
    disabled: list[int] = []
    if _live(mine) and _live(theirs):
        dropped = theirs if keep_subscription_from == kept_user_id else mine
        assert dropped is not None and dropped.id is not None
        await service.disable(session, services(app).events, dropped)
        disabled.append(dropped.id)
    query = (
        select(col(Subscription.id))
        .where(col(Subscription.user_id) == removed_user_id)
        .order_by(col(Subscription.id))
    )
    moved = [item for item in (await session.exec(query)).all() if item is not None]
    await session.exec(
        update(Subscription)
        .where(col(Subscription.user_id) == removed_user_id)
        .values(user_id=kept_user_id, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return {"moved_subscription_ids": moved, "disabled_subscription_ids": disabled}


@hookimpl(optionalhook=True)
async def cabinet_merge_preview_subscription(
    app: Starlette, session: AsyncSession, user_id: int
) -> dict[str, Any] | None:
    """The user's primary subscription as the account-merge preview shows it."""
    current = await service.primary_of(session, user_id)
    if current is None:
        return None
    return {
        "status": service.actual_status(current.status, current.end_date, utcnow()),
        "is_trial": current.is_trial,
        "end_date": current.end_date,
        "traffic_limit_gb": current.traffic_limit_gb,
        "traffic_used_gb": current.traffic_used_gb,
        "device_limit": current.device_limit,
        "tariff_name": None,
        "autopay_enabled": current.autopay_enabled,
    }

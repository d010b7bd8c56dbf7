"""What the VPN panel integration (the ``panel_sync`` plugin) writes of the subscriptions, in
bulk and without loading rows: the panel's state of a subscription, the panel's status and
traffic used of many, a subscription made for a panel user, and the ``panel_sync_state`` of
many. The panel has these values already: nothing is published.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import in_list
from subsvc_subscriptions.admin_changes import PanelState
from subsvc_subscriptions.models import PANEL_SYNC_SYNCED, Subscription
from subsvc_subscriptions.service import new_short_id

_TABLE: sa.Table = Subscription.__table__  # type: ignore[attr-defined]


def _values(state: PanelState) -> dict[str, Any]:
    return {name: value for name, value in asdict(state).items() if value is not None}


async def write_panel_state(
    session: AsyncSession, subscription_id: int, state: PanelState, now: datetime
) -> None:
    """Write the panel's state (its fields that are not ``None``) into the subscription with
    this id; its ``panel_sync_state`` stays as it is."""
    await session.exec(
        sa.update(_TABLE).where(_TABLE.c.id == subscription_id).values(**_values(state), updated_at=now)
    )


async def create_from_panel(
    session: AsyncSession, user_id: int, state: PanelState, now: datetime
) -> Subscription:
    """A paid subscription of the user with the panel user's state, starting ``now`` and
    already ``synced`` (flushed: it has its id)."""
    subscription = Subscription(
        user_id=user_id,
        is_trial=False,
        start_date=now,
        short_id=new_short_id(),
        panel_sync_state=PANEL_SYNC_SYNCED,
        created_at=now,
        updated_at=now,
        **_values(state),
    )
    session.add(subscription)
    await session.flush()
    return subscription


_STATUS = (
    sa.update(_TABLE)
    .where(_TABLE.c.id == sa.bindparam("sid"))
    .values(
        status=sa.bindparam("new_status"),
        traffic_used_gb=sa.bindparam("used"),
        updated_at=sa.bindparam("now"),
    )
)


async def write_panel_statuses(
    session: AsyncSession, statuses: Sequence[tuple[int, str, float]], now: datetime
) -> None:
    """Set the status and the traffic used of many subscriptions: ``(id, status, traffic used
    in GB)`` each, in one statement run for all."""
    rows = [{"sid": sid, "new_status": status, "used": used, "now": now} for sid, status, used in statuses]
    await session.exec(_STATUS, params=rows)


@functools.cache
def _mark(dialect: str) -> sa.Update:
    state = sa.bindparam("state", type_=sa.String)
    return (
        sa.update(_TABLE)
        .where(in_list(_TABLE.c.id, "ids", dialect), _TABLE.c.panel_sync_state != state)
        .values(panel_sync_state=state)
    )


async def set_panel_sync_state(session: AsyncSession, ids: Sequence[int], state: str) -> None:
    """Set the ``panel_sync_state`` of the subscriptions with these ids (``synced``, or
    ``failed`` when the panel refused them); one statement, built once per dialect."""
    dialect = session.get_bind().dialect.name
    await session.exec(_mark(dialect), params={"ids": list(ids), "state": state})

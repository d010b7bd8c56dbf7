"""Statements of the change queue, built once per dialect (values are bind parameters)."""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlalchemy.dialects import postgresql, sqlite
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import in_list
from subsvc_panel_sync.models import FAILED, PENDING, SYNCED, PanelSyncState

STATES: sa.Table = PanelSyncState.__table__  # type: ignore[attr-defined]
SUBSCRIPTIONS: sa.Table = Subscription.__table__  # type: ignore[attr-defined]
USERS: sa.Table = User.__table__  # type: ignore[attr-defined]


def upsert(dialect: str, index: str, set_: dict[str, Any]) -> Any:
    """``INSERT ... ON CONFLICT (index) DO UPDATE SET set_`` on STATES; ``set_`` values may
    be functions of the ``excluded`` row."""
    insert = postgresql.insert(STATES) if dialect == "postgresql" else sqlite.insert(STATES)
    values = {name: value(insert.excluded) if callable(value) else value for name, value in set_.items()}
    return insert.on_conflict_do_update(index_elements=[STATES.c[index]], set_=values)


@functools.cache
def statements(dialect: str) -> dict[str, Any]:
    """Every statement of the change queue, built once per dialect."""
    s, st, u = STATES, SUBSCRIPTIONS, USERS
    # one row per changed subscription of a transaction; ``version`` = its number of changes
    changed = upsert(
        dialect,
        "subscription_id",
        {
            "version": lambda excluded: s.c.version + excluded.version,
            "status": PENDING,
            "attempts": 0,
            "next_attempt_at": lambda excluded: excluded.next_attempt_at,
            "updated_at": lambda excluded: excluded.updated_at,
        },
    )
    due = (
        sa.select(s.c.subscription_id)
        .where(s.c.status.in_((PENDING, FAILED)), s.c.next_attempt_at <= bindparam("now"))
        .order_by(s.c.next_attempt_at, s.c.subscription_id)
        .limit(bindparam("limit"))
    )
    if dialect == "postgresql":
        due = due.with_for_update(skip_locked=True)
    claim = (
        sa.update(s)
        .where(s.c.subscription_id.in_(due.scalar_subquery()))
        .values(next_attempt_at=bindparam("lease_until"))
        .returning(s.c.subscription_id, s.c.attempts)
    )
    wanted = (
        sa.select(
            st.c.id.label("subscription_id"),
            st.c.user_id,
            s.c.version,
            s.c.panel_uuid,
            st.c.status,
            st.c.end_date,
            st.c.traffic_limit_gb,
            st.c.device_limit,
            st.c.connected_squads,
            st.c.short_id,
            u.c.messenger_id,
            u.c.email,
        )
        .join(u, u.c.id == st.c.user_id)
        .outerjoin(s, s.c.subscription_id == st.c.id)
    )
    by_ids = wanted.where(in_list(st.c.id, "ids", dialect)).order_by(st.c.id)
    page = wanted.where(st.c.id > bindparam("after")).order_by(st.c.id).limit(bindparam("limit"))
    # pushed: synced if no change came meanwhile (else pending again, due at once)
    synced = upsert(
        dialect,
        "subscription_id",
        {
            "synced_version": lambda excluded: excluded.synced_version,
            "panel_uuid": lambda excluded: excluded.panel_uuid,
            "synced_at": lambda excluded: excluded.synced_at,
            "error": None,
            "attempts": 0,
            "status": lambda excluded: sa.case((s.c.version <= excluded.version, SYNCED), else_=PENDING),
            "next_attempt_at": lambda excluded: sa.case(
                (s.c.version <= excluded.version, None), else_=excluded.updated_at
            ),
            "updated_at": lambda excluded: excluded.updated_at,
        },
    )
    # a failed push: retried later (a row is made for a subscription never queued before)
    failed = upsert(
        dialect,
        "subscription_id",
        {
            "status": FAILED,
            "attempts": s.c.attempts + 1,
            "error": lambda excluded: excluded.error,
            "next_attempt_at": lambda excluded: excluded.next_attempt_at,
            "updated_at": lambda excluded: excluded.updated_at,
        },
    )
    state = bindparam("state", type_=sa.String)
    mark_subscriptions = (  # the subscriptions' own ``panel_sync_state``: synced or failed
        sa.update(st)
        .where(in_list(st.c.id, "ids", dialect), st.c.panel_sync_state != state)
        .values(panel_sync_state=state)
    )
    counts = sa.select(s.c.status, sa.func.count()).group_by(s.c.status)
    return {
        "changed": changed,
        "claim": claim,
        "by_ids": by_ids,
        "page": page,
        "synced": synced,
        "failed": failed,
        "mark_subscriptions": mark_subscriptions,
        "counts": counts,
    }


async def run_sql(session: Any, statement: Any, *, params: Any = None) -> Any:
    """Run a Core statement (plain rows, executemany with a list of parameter sets) on a
    session; the one place where its loose typing is accepted."""
    return await session.exec(statement, params=params)

"""Statements of the change queue, built once per dialect (values are bind parameters)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlalchemy.dialects import postgresql, sqlite
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.db import in_list
from subsvc_panel_sync.models import FAILED, PENDING, SYNCED, PanelSyncState

STATES: sa.Table = PanelSyncState.__table__  # type: ignore[attr-defined]
SUBSCRIPTIONS: sa.Table = Subscription.__table__  # type: ignore[attr-defined]
USERS: sa.Table = User.__table__  # type: ignore[attr-defined]
Of = Callable[[Any], Any]  # a SET value as a function of the ``excluded`` row


def same_subscription() -> sa.ColumnElement[bool]:
    """Joined on the id, the state row is this subscription's (not a removed one's whose id
    the subscription got: SQLite reuses the highest id)."""
    return sa.or_(STATES.c.short_id.is_(None), STATES.c.short_id == SUBSCRIPTIONS.c.short_id)


def upsert(
    dialect: str,
    index: str,
    set_: dict[str, Any],
    more: Callable[[Any], dict[str, Any]] | None = None,
) -> Any:
    """``INSERT ... ON CONFLICT (index) DO UPDATE SET set_`` on STATES; ``set_`` values may
    be functions of the ``excluded`` row; ``more(excluded)`` gives the columns ``set_`` does
    not name."""
    insert = postgresql.insert(STATES) if dialect == "postgresql" else sqlite.insert(STATES)
    values = more(insert.excluded) if more is not None else {}
    values.update(
        {name: value(insert.excluded) if callable(value) else value for name, value in set_.items()}
    )
    return insert.on_conflict_do_update(index_elements=[STATES.c[index]], set_=values)


@functools.cache
def statements(dialect: str) -> dict[str, Any]:
    """Every statement of the change queue, built once per dialect."""
    s, st, u = STATES, SUBSCRIPTIONS, USERS

    def same(excluded: Any) -> Any:
        """The row is of the subscription written, not of a removed one whose id it got."""
        return sa.or_(s.c.short_id.is_(None), excluded.short_id.is_(None), s.c.short_id == excluded.short_id)

    def kept(value: Of, otherwise: Of) -> Of:
        """``value``; ``otherwise`` when the row was a removed subscription's (what it knew of
        the panel is not this subscription's)."""
        return lambda excluded: sa.case((same(excluded), value(excluded)), else_=otherwise(excluded))

    def newer(excluded: Any) -> Any:
        """A change came after the pushed one (to the same subscription)."""
        return sa.and_(same(excluded), s.c.version > excluded.version)

    def subscription_of(excluded: Any) -> dict[str, Any]:
        """Whose row it is (a removed subscription's panel user is not taken over)."""
        return {
            "user_id": excluded.user_id,
            "short_id": sa.func.coalesce(excluded.short_id, s.c.short_id),
            "panel_uuid": kept(lambda _: s.c.panel_uuid, lambda ex: ex.panel_uuid)(excluded),
            "synced_version": kept(lambda _: s.c.synced_version, lambda ex: ex.synced_version)(excluded),
            "synced_at": kept(lambda _: s.c.synced_at, lambda ex: ex.synced_at)(excluded),
            "version": kept(lambda _: s.c.version, lambda ex: ex.version)(excluded),
        }

    # one row per changed subscription of a transaction; ``version`` = its number of changes
    changed = upsert(
        dialect,
        "subscription_id",
        {
            "version": kept(lambda ex: s.c.version + ex.version, lambda ex: ex.version),
            "pending_actions": kept(
                lambda ex: s.c.pending_actions.bitwise_or(ex.pending_actions), lambda ex: ex.pending_actions
            ),
            "status": PENDING,
            "attempts": 0,
            "next_attempt_at": lambda excluded: excluded.next_attempt_at,
            "updated_at": lambda excluded: excluded.updated_at,
        },
        subscription_of,
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
    live_state = sa.and_(s.c.subscription_id == st.c.id, same_subscription())
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
            s.c.pending_actions,
            st.c.subscription_url,
            st.c.subscription_crypto_link,
        )
        .join(u, u.c.id == st.c.user_id)
        .outerjoin(s, live_state)
    )
    by_ids = wanted.where(in_list(st.c.id, "ids", dialect)).order_by(st.c.id)
    page = wanted.where(st.c.id > bindparam("after")).order_by(st.c.id).limit(bindparam("limit"))
    # the actions a push performed, cleared unless a change came meanwhile (then done again)
    actions_done = (
        sa.update(s)
        .where(s.c.subscription_id == bindparam("sid"), s.c.version <= bindparam("done_version"))
        .values(
            pending_actions=s.c.pending_actions.bitwise_and(bindparam("done", type_=sa.Integer).bitwise_not())
        )
    )

    def unfinished(excluded: Any) -> Any:
        """A change came after the pushed one, or actions are still asked of the panel."""
        return sa.or_(newer(excluded), sa.and_(same(excluded), s.c.pending_actions != 0))

    # pushed: synced if nothing is left to do (else pending again, due at once)
    synced = upsert(
        dialect,
        "subscription_id",
        {
            "synced_version": lambda excluded: excluded.synced_version,
            "panel_uuid": lambda excluded: excluded.panel_uuid,
            "synced_at": lambda excluded: excluded.synced_at,
            "error": None,
            "attempts": 0,
            "status": lambda excluded: sa.case((unfinished(excluded), PENDING), else_=SYNCED),
            "next_attempt_at": lambda excluded: sa.case(
                (unfinished(excluded), excluded.updated_at), else_=None
            ),
            "updated_at": lambda excluded: excluded.updated_at,
        },
        subscription_of,
    )
    # a failed push: retried later (a row is made for a subscription never queued before)
    failed = upsert(
        dialect,
        "subscription_id",
        {
            "status": FAILED,
            "attempts": kept(lambda _: s.c.attempts + 1, lambda _: 1),
            "error": lambda excluded: excluded.error,
            "next_attempt_at": lambda excluded: excluded.next_attempt_at,
            "updated_at": lambda excluded: excluded.updated_at,
        },
        subscription_of,
    )
    # removed subscriptions' rows (no subscription has their id): what disabling needs
    exists = sa.exists().where(st.c.id == s.c.subscription_id)
    removed = (
        sa.select(
            s.c.subscription_id,
            s.c.user_id,
            s.c.version,
            s.c.panel_uuid,
            s.c.short_id,
            u.c.id.label("user_found"),
            u.c.messenger_id,
            u.c.email,
        )
        .outerjoin(u, u.c.id == s.c.user_id)
        .where(in_list(s.c.subscription_id, "ids", dialect), ~exists)
        .order_by(s.c.subscription_id)
    )
    # a removed subscription's row once its panel user is disabled (unless changed meanwhile),
    # or its failure (unless the id is a new subscription's now)
    forget = sa.delete(s).where(
        s.c.subscription_id == bindparam("sid"), s.c.version <= bindparam("done_version"), ~exists
    )
    removal_failed = (
        sa.update(s)
        .where(s.c.subscription_id == bindparam("sid"), ~exists)
        .values(
            status=FAILED,
            attempts=s.c.attempts + 1,
            error=bindparam("error"),
            next_attempt_at=bindparam("retry_at"),
            updated_at=bindparam("now"),
        )
    )
    counts = sa.select(s.c.status, sa.func.count()).group_by(s.c.status)
    return {
        "changed": changed,
        "claim": claim,
        "by_ids": by_ids,
        "page": page,
        "actions_done": actions_done,
        "synced": synced,
        "failed": failed,
        "removed": removed,
        "forget": forget,
        "removal_failed": removal_failed,
        "counts": counts,
    }


async def run_sql(session: Any, statement: Any, *, params: Any = None) -> Any:
    """Run a Core statement (plain rows, executemany with a list of parameter sets) on a
    session; the one place where its loose typing is accepted."""
    return await session.exec(statement, params=params)

"""A bulk run (one administrator's request) and its items (one per target, with its outcome)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

# status of a run
RUNNING, COMPLETED = "running", "completed"
UNFINISHED = (RUNNING,)
# status of an item
PENDING, SUCCESS, ERROR, SKIPPED = "pending", "success", "error", "skipped"
DONE = (SUCCESS, ERROR, SKIPPED)
# what the targets are
USERS_TARGET, SUBSCRIPTIONS_TARGET = "users", "subscriptions"
MESSAGE_CHARS = 500


class BulkRun(SQLModel, table=True):
    """One bulk request: the action, its parameters, who asked, how far it got.

    ``status``: ``running`` -> ``completed``. ``lease_owner``/``lease_until``: the one process
    applying it (``subsvc.leases``). ``idempotency_key`` (with the administrator) names the
    request: a repeat answers this run. ``fingerprint``: the request's digest, to refuse a key
    reused for another request."""

    __tablename__ = "bulk_runs"
    __table_args__ = (
        UniqueConstraint("actor_user_id", "idempotency_key", name="uq_bulk_runs_actor_key"),
        Index("ix_bulk_runs_status", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    action: str = Field(sa_type=String(40))
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    dry_run: bool = False
    target: str = Field(default=USERS_TARGET, sa_type=String(20))
    actor_user_id: int = Field(sa_type=Integer)
    idempotency_key: str | None = Field(default=None, sa_type=String(128))
    fingerprint: str = Field(sa_type=String(64))
    status: str = Field(default=RUNNING, sa_type=String(20))
    total: int = 0
    success_count: int = 0
    error_count: int = 0
    skipped_count: int = 0
    lease_owner: str | None = Field(default=None, sa_type=String(64))
    lease_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class BulkRunItem(SQLModel, table=True):
    """One target of a run, in request order (``position`` from 1): ``pending`` until applied,
    then ``success``, ``error`` or ``skipped`` (the target does not exist), with the message.
    ``user_id`` is the target user (of the subscription, once found: 0 when none);
    ``subscription_id`` the target subscription when the run names subscriptions. No foreign
    keys: a run outlives the users and subscriptions it deleted."""

    __tablename__ = "bulk_run_items"
    __table_args__ = (
        UniqueConstraint("run_id", "position", name="uq_bulk_run_items_position"),
        Index("ix_bulk_run_items_status", "run_id", "status", "position"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(
        sa_column=Column(Integer, ForeignKey("bulk_runs.id", ondelete="CASCADE"), nullable=False)
    )
    position: int
    user_id: int = Field(default=0, sa_type=BigInteger)
    subscription_id: int | None = Field(default=None, sa_type=BigInteger)
    status: str = Field(default=PENDING, sa_type=String(20))
    message: str | None = Field(default=None, sa_type=String(MESSAGE_CHARS))
    username: str | None = Field(default=None, sa_type=String(255))
    done_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


RUNS = BulkRun.__table__  # type: ignore[attr-defined]
ITEMS = BulkRunItem.__table__  # type: ignore[attr-defined]
MODELS = [BulkRun, BulkRunItem]

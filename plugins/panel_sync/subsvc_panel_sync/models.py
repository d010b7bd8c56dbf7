"""Tables: each subscription's sync state (the durable queue of changes for the panel), the
full-sync runs with their progress, and the single control row (auto sync, the running sync)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Integer, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

PENDING = "pending"
SYNCED = "synced"
FAILED = "failed"
#: Bits of ``pending_actions``: what the panel does after the next push.
RESET_TRAFFIC = 1
RESET_DEVICES = 2
ACTION_BITS = {"reset_traffic": RESET_TRAFFIC, "reset_devices": RESET_DEVICES}


class PanelSyncState(SQLModel, table=True):
    """A subscription as the panel knows it. ``version`` grows with every committed change;
    the change is pushed until ``synced_version`` reaches it. ``next_attempt_at`` is when a
    worker may (re)try: a claim moves it a lease ahead, a failure by the backoff.
    ``pending_actions`` (bits of :data:`ACTION_BITS`) are asked of the panel after the next
    push, then cleared.

    No foreign key: the row outlives its subscription, so that a removal's change (the
    ``disabled`` published before the row goes) still reaches the panel; the row is deleted
    once that is done. ``short_id`` (the subscription's) tells a removed subscription's row
    from a new subscription that got the same id (SQLite reuses the highest id)."""

    __tablename__ = "panel_sync_states"
    __table_args__ = (
        Index("ix_panel_sync_states_due", "status", "next_attempt_at"),
        Index("ix_panel_sync_states_user_id", "user_id"),
    )

    subscription_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    user_id: int
    short_id: str | None = Field(default=None, max_length=16)
    status: str = Field(default=PENDING, max_length=16)
    version: int = 1
    synced_version: int = 0
    attempts: int = 0
    next_attempt_at: datetime | None = Field(default_factory=utcnow, sa_type=UTCDateTime)
    panel_uuid: str | None = Field(default=None, max_length=64)
    pending_actions: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    synced_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PanelSyncRun(SQLModel, table=True):
    """One full sync (``kind``: to_panel, from_panel, validate, cleanup, statuses, auto), its
    progress and outcome. ``cursor`` is where a resumed run goes on from."""

    __tablename__ = "panel_sync_runs"
    __table_args__ = (Index("ix_panel_sync_runs_status_heartbeat", "status", "heartbeat_at"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=20)
    mode: str | None = Field(default=None, max_length=20)
    reason: str = Field(default="manual", max_length=20)
    status: str = Field(default="queued", max_length=16)
    total: int = 0
    processed: int = 0
    created: int = 0
    updated: int = 0
    disabled: int = 0
    unchanged: int = 0
    error_count: int = 0
    errors: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    cursor: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    message: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    heartbeat_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class PanelSyncControl(SQLModel, table=True):
    """The one row (id 1): auto sync on/off, when it runs next, and the sync running now
    (set with a conditional UPDATE, so two syncs never run at once)."""

    __tablename__ = "panel_sync_control"

    id: int = Field(default=1, primary_key=True)
    auto_enabled: bool = False
    next_auto_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    current_run_id: int | None = None
    last_auto_run_id: int | None = None
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)

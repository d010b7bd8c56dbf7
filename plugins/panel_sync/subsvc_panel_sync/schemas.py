"""The wire contract of the sync endpoints (the reference's shapes, and our status views)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

Mode = Literal["all", "new_only", "update_only"]


class SyncMode(BaseModel):
    """Sync mode options (``POST /cabinet/admin/panel/sync/from-panel``)."""

    mode: Mode = "all"


class PanelSyncFromPanelRequest(BaseModel):
    """``POST /panel/sync/from-panel``."""

    mode: Mode = "all"


class PanelGenericSyncResponse(BaseModel):
    """Web API answer of a sync operation."""

    success: bool
    detail: str | None = None
    data: dict[str, Any] | None = None


class SyncResponse(BaseModel):
    """Cabinet admin answer of a sync operation."""

    success: bool
    message: str | None = None
    data: dict[str, Any] | None = None


class AutoSyncToggleRequest(BaseModel):
    enabled: bool


class AutoSyncStatus(BaseModel):
    """The auto sync: on/off, its UTC times, the next run, the last scheduled or manual one."""

    enabled: bool
    times: list[str] = Field(default_factory=list)
    next_run: datetime | None = None
    is_running: bool = False
    last_run_started_at: datetime | None = None
    last_run_finished_at: datetime | None = None
    last_run_success: bool | None = None
    last_run_reason: str | None = None
    last_run_error: str | None = None
    last_user_stats: dict[str, Any] | None = None
    last_server_stats: dict[str, Any] | None = None


class AutoSyncRunResponse(BaseModel):
    """Answer of ``POST /cabinet/admin/panel/sync/auto/run``: started (in the background) or
    why not."""

    started: bool
    success: bool | None = None
    error: str | None = None
    user_stats: dict[str, Any] | None = None
    server_stats: dict[str, Any] | None = None
    reason: str | None = None
    run_id: int | None = None


class SyncRun(BaseModel):
    """A full sync and its progress."""

    id: int
    kind: str
    mode: str | None = None
    reason: str
    status: str = Field(description="queued, running, done or failed")
    percent: float
    total: int
    processed: int
    created: int
    updated: int
    disabled: int
    unchanged: int
    error_count: int
    errors: list[str] = Field(description="The first PANEL_SYNC_MAX_ERRORS errors.")
    result: dict[str, Any] = Field(default_factory=dict)
    message: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None


class QueueCounts(BaseModel):
    """Subscriptions by sync state: waiting for their first attempt, retrying, in sync."""

    pending: int = 0
    failed: int = 0
    synced: int = 0


class SyncStatusResponse(BaseModel):
    """``GET /panel/sync/status``: a full sync (the latest, or ``run_id``) and the change queue."""

    run: SyncRun | None = None
    queue: QueueCounts


class SubscriptionSyncState(BaseModel):
    """One subscription's state in the panel."""

    subscription_id: int
    user_id: int
    panel_sync_status: Literal["pending", "synced", "failed"]
    panel_synced_at: datetime | None = None
    panel_sync_error: str | None = None
    panel_uuid: str | None = None
    attempts: int = 0
    next_attempt_at: datetime | None = None

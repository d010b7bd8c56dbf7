"""A running full sync's record: counts, capped errors, the cursor to resume from, written
to its ``panel_sync_runs`` row (with a ``panel_sync.progress`` event in the same
transaction, which the admin WebSockets receive) after every page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from starlette.applications import Starlette

from subsvc.api import from_attributes
from subsvc.db import Database, utcnow
from subsvc.services import services
from subsvc_panel_sync.models import PanelSyncControl, PanelSyncRun
from subsvc_panel_sync.queries import run_sql
from subsvc_panel_sync.settings import PanelSyncSettings

PROGRESS_EVENT = "panel_sync.progress"
RUNS: sa.Table = PanelSyncRun.__table__  # type: ignore[attr-defined]
CONTROL: sa.Table = PanelSyncControl.__table__  # type: ignore[attr-defined]
COUNTS = ("total", "processed", "created", "updated", "disabled", "unchanged", "error_count")
SAVED = (*COUNTS, "status", "errors", "cursor", "result", "message")  # the row's columns of these names


class SyncProgress(BaseModel):
    """Payload of ``panel_sync.progress``: where a full sync stands."""

    run_id: int
    kind: str
    status: str
    percent: float
    total: int
    processed: int
    created: int
    updated: int
    disabled: int
    unchanged: int
    errors: int
    message: str | None = None


def percent(processed: int, total: int, status: str) -> float:
    if status == "done":
        return 100.0
    if total <= 0:
        return 0.0
    return round(min(processed, total) * 100 / total, 1)


@dataclass
class Run:
    """A full sync being worked on in this process."""

    app: Starlette
    id: int
    kind: str
    mode: str | None
    reason: str
    status: str = "running"
    total: int = 0
    processed: int = 0
    created: int = 0
    updated: int = 0
    disabled: int = 0
    unchanged: int = 0
    error_count: int = 0
    errors: list[str] = field(default_factory=list)
    cursor: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)
    message: str | None = None

    @classmethod
    def of(cls, app: Starlette, row: Any) -> Run:
        values = row._mapping
        return cls(
            app,
            values["id"],
            values["kind"],
            values["mode"],
            values["reason"],
            **{name: values[name] for name in COUNTS},
            errors=list(values["errors"] or []),
            cursor=dict(values["cursor"] or {}),
            result=dict(values["result"] or {}),
        )

    @property
    def db(self) -> Database:
        db: Database = services(self.app).db
        return db

    @property
    def settings(self) -> PanelSyncSettings:
        return PanelSyncSettings.of(self.app)

    @property
    def stopping(self) -> bool:
        return bool(services(self.app).jobs.stopping)

    def error(self, text: str) -> None:
        """Count an error; the first ``PANEL_SYNC_MAX_ERRORS`` are kept."""
        self.error_count += 1
        if len(self.errors) < self.settings.PANEL_SYNC_MAX_ERRORS:
            self.errors.append(text[:500])

    def count(self, action: str, n: int = 1) -> None:
        if action in ("created", "updated", "disabled", "unchanged"):
            setattr(self, action, getattr(self, action) + n)

    def payload(self) -> SyncProgress:
        return from_attributes(
            SyncProgress,
            self,
            run_id=self.id,
            percent=percent(self.processed, self.total, self.status),
            errors=self.error_count,  # a count: the run's errors are the texts kept
        )

    async def save(self, *, finished: bool = False) -> None:
        """Write the record (and publish its progress); ``finished``: also free the control."""
        now = utcnow()
        values: dict[str, Any] = {name: getattr(self, name) for name in SAVED}
        values["heartbeat_at"] = now
        if finished:
            values["finished_at"] = now
        async with self.db.session() as session:
            await run_sql(session, sa.update(RUNS).where(RUNS.c.id == self.id).values(**values))
            if finished:
                await run_sql(
                    session,
                    sa.update(CONTROL)
                    .where(CONTROL.c.id == 1, CONTROL.c.current_run_id == self.id)
                    .values(current_run_id=None, updated_at=now),
                )
            services(self.app).events.publish(session, PROGRESS_EVENT, self.payload())
            await session.commit()

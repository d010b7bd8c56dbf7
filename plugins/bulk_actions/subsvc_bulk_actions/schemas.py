"""Wire models of the bulk_actions plugin: the request, its answer, its progress events."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from subsvc.api import Header

MAX_TARGETS = 10_000
"""Targets one request names at most (the reference allows 500 users or 2,000 subscriptions;
a run here is durable and batched, so 10,000 fit)."""
DEFAULT_BALANCE_DESCRIPTION = "Массовое начисление баланса"


class BulkActionType(StrEnum):
    EXTEND_SUBSCRIPTION = "extend_subscription"
    CANCEL_SUBSCRIPTION = "cancel_subscription"
    ACTIVATE_SUBSCRIPTION = "activate_subscription"
    CHANGE_TARIFF = "change_tariff"
    ADD_DAYS = "add_days"
    ADD_TRAFFIC = "add_traffic"
    ADD_BALANCE = "add_balance"
    ASSIGN_PROMO_GROUP = "assign_promo_group"
    GRANT_SUBSCRIPTION = "grant_subscription"
    SET_DEVICES = "set_devices"
    DELETE_SUBSCRIPTION = "delete_subscription"
    DELETE_USER = "delete_user"


class BulkActionParams(BaseModel):
    """What the action needs (each action reads its own)."""

    days: int | None = Field(default=None, ge=1, le=3650)
    tariff_id: int | None = Field(default=None, gt=0)
    traffic_gb: int | None = Field(default=None, ge=1, le=10000)
    amount_kopeks: int | None = Field(default=None, ge=1, le=2000000000)
    balance_description: str = Field(default=DEFAULT_BALANCE_DESCRIPTION, max_length=500)
    promo_group_id: int | None = None
    device_limit: int | None = Field(default=None, ge=1, le=50)
    delete_from_panel: bool = True
    force_delete_active_paid: bool = False


class BulkExecuteRequest(BaseModel):
    action: BulkActionType
    user_ids: list[int] | None = Field(default=None, min_length=1, max_length=MAX_TARGETS)
    subscription_ids: list[int] | None = Field(default=None, min_length=1, max_length=MAX_TARGETS)
    params: BulkActionParams = Field(default_factory=BulkActionParams)
    dry_run: bool = Field(default=False, description="Preview only, no mutations")


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=128,
        description="Repeated by the same administrator: the first request's run is answered, "
        "nothing is applied twice",
    ),
]


class BulkUserResult(BaseModel):
    """One target's outcome."""

    user_id: int
    success: bool
    message: str | None = None
    username: str | None = None
    subscription_id: int | None = None


class BulkExecuteResponse(BaseModel):
    run_id: int
    action: BulkActionType
    total: int
    success_count: int
    error_count: int
    skipped_count: int
    dry_run: bool
    results: list[BulkUserResult]


class BulkProgressEvent(BaseModel):
    """An SSE ``data:`` line per target as it completes."""

    type: Literal["progress"] = "progress"
    current: int
    total: int
    user_id: int
    subscription_id: int | None = None
    success: bool
    message: str | None = None
    username: str | None = None


class BulkCompleteEvent(BaseModel):
    """The SSE stream's last ``data:`` line."""

    type: Literal["complete"] = "complete"
    run_id: int
    action: BulkActionType
    total: int
    success_count: int
    error_count: int
    skipped_count: int
    dry_run: bool


class BulkProgress(BaseModel):
    """``bulk.progress`` (after each batch) and ``bulk.completed`` (once): a run's counters."""

    run_id: int
    action: str
    actor_user_id: int
    status: str
    total: int
    done: int
    success_count: int
    error_count: int
    skipped_count: int
    dry_run: bool

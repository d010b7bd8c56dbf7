"""The delivery loop's statements, built once per dialect (values are bind parameters)."""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa
from sqlalchemy import bindparam

from subsvc.db import in_list
from subsvc_webhooks.models import ATTEMPT_COLUMNS, DELIVERIES, PENDING, WEBHOOKS

_deliveries, _webhooks = DELIVERIES, WEBHOOKS


@functools.cache
def statements(dialect: str) -> dict[str, Any]:
    """Every statement of the delivery loop, built once per dialect."""
    d, w = _deliveries, _webhooks
    due = (
        sa.select(d.c.id)
        .join(w, w.c.id == d.c.webhook_id)
        .where(d.c.status == PENDING, d.c.next_retry_at <= bindparam("now"), w.c.is_active.is_(True))
        .order_by(d.c.next_retry_at, d.c.id)
        .limit(bindparam("limit"))
    )
    if dialect == "postgresql":
        due = due.with_for_update(of=d, skip_locked=True)
    claim = (
        sa.update(d)
        .where(d.c.id.in_(due.scalar_subquery()))
        .values(next_retry_at=bindparam("lease_until"))
        .returning(
            d.c.id,
            d.c.webhook_id,
            d.c.event_id,
            d.c.event_type,
            d.c.payload,
            d.c.attempt_number,
            d.c.delivery_key,
        )
    )
    targets = sa.select(w.c.id, w.c.url, w.c.secret).where(in_list(w.c.id, "ids", dialect))
    record = (
        sa.update(d)
        .where(d.c.id == bindparam("delivery_id"), d.c.status == PENDING)
        .values(
            status=bindparam("status"),
            response_status=bindparam("response_status"),
            response_body=bindparam("response_body"),
            error_message=bindparam("error_message"),
            delivered_at=bindparam("delivered_at"),
            next_retry_at=bindparam("retry_at"),
        )
    )
    # The next attempt, unless the webhook was deleted meanwhile (then nothing is written).
    retry_rows = sa.select(
        w.c.id,
        bindparam("event_id", type_=sa.Integer),
        bindparam("delivery_key", type_=sa.String),
        bindparam("event_type", type_=sa.String),
        bindparam("payload", type_=sa.JSON),
        sa.literal(PENDING, sa.String),
        bindparam("attempt_number", type_=sa.Integer),
        bindparam("created_at", type_=d.c.created_at.type),
        bindparam("retry_at", type_=d.c.next_retry_at.type),
    ).where(w.c.id == bindparam("webhook_id"))
    retry = sa.insert(d).from_select(list(ATTEMPT_COLUMNS), retry_rows)
    counters = {
        "success_count": w.c.success_count + bindparam("successes"),
        "failure_count": w.c.failure_count + bindparam("failures"),
        "last_triggered_at": bindparam("now"),
    }
    ended_well = sa.update(w).where(w.c.id == bindparam("webhook_id")).values(**counters, failing_since=None)
    ended_badly = (
        sa.update(w)
        .where(w.c.id == bindparam("webhook_id"))
        .values(**counters, failing_since=sa.func.coalesce(w.c.failing_since, bindparam("failed_at")))
    )
    deactivate = (
        sa.update(w)
        .where(
            w.c.id == bindparam("webhook_id"),
            w.c.is_active.is_(True),
            w.c.failing_since <= bindparam("cutoff"),
        )
        .values(is_active=False, deactivated_at=bindparam("now"), deactivation_reason=bindparam("reason"))
    )
    release = sa.update(d).where(in_list(d.c.id, "ids", dialect), d.c.status == PENDING)
    release = release.values(next_retry_at=bindparam("now"))
    return {
        "claim": claim,
        "targets": targets,
        "record": record,
        "retry": retry,
        "ended_well": ended_well,
        "ended_badly": ended_badly,
        "deactivate": deactivate,
        "release": release,
    }

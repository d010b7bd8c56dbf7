"""Plugin `bulk_actions`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_bulk_actions.models import MODELS
from subsvc_bulk_actions.processor import JOBS
from subsvc_bulk_actions.routes import TAG, router
from subsvc_bulk_actions.runs import COMPLETED_EVENT, PROGRESS_EVENT
from subsvc_bulk_actions.schemas import BulkProgress
from subsvc_bulk_actions.settings import BulkActionsSettings

plugin = Plugin(
    models=MODELS,
    endpoints=[router],
    permissions={"bulk_actions": ["read", "execute"]},
    tags={
        TAG: "One action applied to many users or subscriptions: a durable background run with "
        "per-target results, progress (SSE and events), idempotent under retry."
    },
    settings=BulkActionsSettings,
    events={PROGRESS_EVENT: BulkProgress, COMPLETED_EVENT: BulkProgress},
    jobs=JOBS,
)

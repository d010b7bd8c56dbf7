"""Plugin `broadcasts`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_broadcasts import hooks, merging
from subsvc_broadcasts.models import MODELS
from subsvc_broadcasts.routes import admin, web
from subsvc_broadcasts.schemas import BroadcastProgress
from subsvc_broadcasts.sender import JOBS
from subsvc_broadcasts.service import PROGRESS_EVENT, BroadcastRefused
from subsvc_broadcasts.settings import BroadcastsSettings

plugin = Plugin(
    models=MODELS,
    endpoints=[web.router, admin.router],
    permissions={"broadcasts": ["read", "create", "edit", "delete", "send"]},
    tags={
        "broadcasts": "Messenger broadcasts to a target segment: create, history, stop.",
        "Cabinet Admin Broadcasts": "Cabinet administrators' broadcasts: filters with counts, preview, "
        "create, progress, history, stop.",
    },
    settings=BroadcastsSettings,
    events={PROGRESS_EVENT: BroadcastProgress},
    jobs=JOBS,
    errors={BroadcastRefused: BroadcastRefused.answer},
    hooks=[hooks, merging],
)

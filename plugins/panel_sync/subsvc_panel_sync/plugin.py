"""Plugin `panel_sync`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_panel_sync import hooks, hookspecs
from subsvc_panel_sync.jobs import JOBS
from subsvc_panel_sync.models import PanelSyncControl, PanelSyncRun, PanelSyncState
from subsvc_panel_sync.progress import PROGRESS_EVENT, SyncProgress
from subsvc_panel_sync.routes import endpoints
from subsvc_panel_sync.settings import PanelSyncSettings

plugin = Plugin(
    models=[PanelSyncState, PanelSyncRun, PanelSyncControl],
    endpoints=endpoints,
    permissions={"panel": ["read", "sync", "manage"]},
    settings=PanelSyncSettings,
    events={PROGRESS_EVENT: SyncProgress},
    jobs=JOBS,
    hookspecs=hookspecs,
    hooks=[hooks],
)

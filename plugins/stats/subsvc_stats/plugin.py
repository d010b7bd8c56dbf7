"""Plugin `stats`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_stats import hooks
from subsvc_stats.routes import router
from subsvc_stats.settings import StatsSettings

plugin = Plugin(
    endpoints=[router],
    permissions={"stats": ["read", "export"]},
    tags={"stats": "Overview and detailed statistics."},
    settings=StatsSettings,
    hooks=[hooks],
)

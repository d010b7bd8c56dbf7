"""Plugin `recurrent`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_recurrent.routes import info, router
from subsvc_recurrent.settings import RecurrentSettings

plugin = Plugin(
    endpoints=[router, info],
    tags={"Cabinet Info": "The cabinet's public documents."},
    settings=RecurrentSettings,
)

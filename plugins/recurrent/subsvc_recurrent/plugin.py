"""Plugin `recurrent`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_recurrent.routes import router

plugin = Plugin(endpoints=[router])

"""Plugin `miniapp`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_miniapp.routes import (
    addons,
    devices,
    maintenance,
    payments,
    promos,
    renewals,
    sales,
    subscription,
)
from subsvc_miniapp.settings import MiniAppSettings

plugin = Plugin(
    endpoints=[
        maintenance.router,
        payments.router,
        promos.router,
        devices.router,
        subscription.router,
        renewals.router,
        addons.router,
        sales.router,
    ],
    settings=MiniAppSettings,
    tags={"miniapp": "The messenger mini app's API: every operation a POST signed by its init data."},
)

"""Plugin `support`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_support import hooks
from subsvc_support.models import SupportSettingsRow
from subsvc_support.routes import admin, info
from subsvc_support.settings import SupportSettings

plugin = Plugin(
    models=[SupportSettingsRow],
    endpoints=[admin, info],
    permissions={"tickets": ["settings"]},
    settings=SupportSettings,
    hooks=[hooks],
)

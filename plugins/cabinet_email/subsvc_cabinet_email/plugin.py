"""Plugin `cabinet_email`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_cabinet_email import hooks, merging
from subsvc_cabinet_email.models import EmailToken
from subsvc_cabinet_email.routes import change, password, registration
from subsvc_cabinet_email.settings import CabinetEmailSettings

plugin = Plugin(
    models=[EmailToken],
    endpoints=[registration.router, password.router, change.router],
    settings=CabinetEmailSettings,
    hooks=[hooks, merging],
)

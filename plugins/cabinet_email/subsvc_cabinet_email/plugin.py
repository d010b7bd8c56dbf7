"""Plugin `cabinet_email`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_cabinet_email import hooks, merging
from subsvc_cabinet_email.accounts import EmailRuleError
from subsvc_cabinet_email.delivery import DeliveryFailed
from subsvc_cabinet_email.models import EmailToken
from subsvc_cabinet_email.routes import change, password, registration
from subsvc_cabinet_email.settings import CabinetEmailSettings

plugin = Plugin(
    models=[EmailToken],
    endpoints=[registration.router, password.router, change.router],
    settings=CabinetEmailSettings,
    errors={EmailRuleError: lambda exc: (exc.status, exc.detail), DeliveryFailed: 503},
    hooks=[hooks, merging],
)

"""Plugin `cabinet_email`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_cabinet_email import hooks, merging
from subsvc_cabinet_email.accounts import EmailRuleError
from subsvc_cabinet_email.delivery import DeliveryFailed
from subsvc_cabinet_email.models import EmailToken, EmailUnsubscribe
from subsvc_cabinet_email.routes import change, merge, password, public, registration
from subsvc_cabinet_email.settings import CabinetEmailSettings

plugin = Plugin(
    models=[EmailToken, EmailUnsubscribe],
    endpoints=[registration.router, password.router, change.router, merge.router, public.router],
    tags={"Cabinet:Public": "Public cabinet pages: site verification, one-click e-mail unsubscribe."},
    settings=CabinetEmailSettings,
    errors={EmailRuleError: EmailRuleError.answer, DeliveryFailed: 503},
    hooks=[hooks, merging],
)

"""Plugin `pay_stars`: what it contributes to subsvc."""

from subsvc_payments.api import notification_endpoint

from subsvc.manifest import Plugin
from subsvc_pay_stars import hooks
from subsvc_pay_stars.provider import NAME
from subsvc_pay_stars.routes import balance
from subsvc_pay_stars.settings import StarsSettings

plugin = Plugin(
    endpoints=[
        balance,
        notification_endpoint(NAME, path_setting="STARS_WEBHOOK_PATH", provider_title="Messenger Stars"),
    ],
    settings=StarsSettings,
    hooks=[hooks],
)

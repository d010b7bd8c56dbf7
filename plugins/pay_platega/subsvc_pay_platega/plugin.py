"""Plugin `pay_platega`: what it contributes to subsvc."""

from subsvc_payments.api import notification_endpoint

from subsvc.manifest import Plugin
from subsvc_pay_platega import hooks
from subsvc_pay_platega.protocol import NAME
from subsvc_pay_platega.settings import PlategaSettings

plugin = Plugin(
    endpoints=[notification_endpoint(NAME, path_setting="PLATEGA_WEBHOOK_PATH", provider_title="Platega")],
    settings=PlategaSettings,
    hooks=[hooks],
)

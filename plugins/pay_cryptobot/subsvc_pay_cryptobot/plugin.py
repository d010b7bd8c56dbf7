"""Plugin `pay_cryptobot`: what it contributes to subsvc."""

from subsvc_payments.api import notification_endpoint

from subsvc.manifest import Plugin
from subsvc_pay_cryptobot import hooks
from subsvc_pay_cryptobot.provider import NAME, TITLE
from subsvc_pay_cryptobot.settings import CryptoBotSettings

plugin = Plugin(
    endpoints=[notification_endpoint(NAME, path_setting="CRYPTOBOT_WEBHOOK_PATH", provider_title=TITLE)],
    settings=CryptoBotSettings,
    hooks=[hooks],
)

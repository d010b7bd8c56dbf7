"""Plugin `pay_yookassa`: what it contributes to subsvc."""

from subsvc_payments.api import notification_endpoint

from subsvc.manifest import Plugin
from subsvc_pay_yookassa import hooks
from subsvc_pay_yookassa.models import SavedCard
from subsvc_pay_yookassa.protocol import NAME
from subsvc_pay_yookassa.routes import balance
from subsvc_pay_yookassa.settings import YookassaSettings

notifications = notification_endpoint(NAME, path_setting="YOOKASSA_WEBHOOK_PATH", provider_title="YooKassa")

plugin = Plugin(
    models=[SavedCard],
    endpoints=[balance, notifications],
    settings=YookassaSettings,
    hooks=[hooks],
)

"""Plugin `pay_apple_iap`: what it contributes to subsvc."""

from subsvc_payments.api import notification_endpoint

from subsvc.manifest import Plugin
from subsvc_pay_apple_iap import hooks
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_pay_apple_iap.purchase import AppleRefusal
from subsvc_pay_apple_iap.records import TRANSACTION_REVOKED
from subsvc_pay_apple_iap.routes import TAG, cabinet, support
from subsvc_pay_apple_iap.schemas import TransactionRevoked
from subsvc_pay_apple_iap.settings import AppleIapSettings

plugin = Plugin(
    models=[AppleIapTransaction],
    endpoints=[
        cabinet,
        support,
        notification_endpoint(
            "apple_iap",
            path_setting="APPLE_IAP_WEBHOOK_PATH",
            provider_title="App Store Server Notifications",
        ),
    ],
    permissions={"payments": ["read", "edit"]},
    tags={TAG: "Apple in-app purchases credited to the balance; support's search and reconciliation."},
    settings=AppleIapSettings,
    events={TRANSACTION_REVOKED: TransactionRevoked},
    errors={AppleRefusal: AppleRefusal.answer},
    hooks=[hooks],
)

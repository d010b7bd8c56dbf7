"""Plugin `billing`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_billing import merging
from subsvc_billing.models import Transaction
from subsvc_billing.routes import transactions, users
from subsvc_billing.schemas import TransactionEvent
from subsvc_billing.service import PAYMENT_COMPLETED, TRANSACTION_CREATED
from subsvc_billing.settings import BillingSettings

plugin = Plugin(
    models=[Transaction],
    endpoints=[users, transactions],
    permissions={"users": ["balance"], "payments": ["read"]},
    tags={"transactions": "Balance transactions: deposits, withdrawals, payments."},
    settings=BillingSettings,
    events={PAYMENT_COMPLETED: TransactionEvent, TRANSACTION_CREATED: TransactionEvent},
    hooks=[merging],
)

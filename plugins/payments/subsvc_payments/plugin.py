"""Plugin `payments`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_payments import admin_methods, admin_payments, hooks, hookspecs, merging
from subsvc_payments.crediting import BALANCE_TOPPED_UP, PAYMENT_FAILED, PAYMENT_SUCCEEDED
from subsvc_payments.jobs import JOBS
from subsvc_payments.method_configs import MethodNotFound
from subsvc_payments.models import Payment, PaymentMethodConfig, PaymentMethodPromoGroup
from subsvc_payments.providers import ProviderError
from subsvc_payments.records import IdempotencyConflict
from subsvc_payments.routes import balance
from subsvc_payments.schemas import BalanceToppedUp, PaymentEvent
from subsvc_payments.settings import PaymentsSettings
from subsvc_payments.topup import TopUpInProgress

plugin = Plugin(
    models=[Payment, PaymentMethodConfig, PaymentMethodPromoGroup],
    endpoints=[balance, admin_methods.router, admin_payments.router],
    permissions={"payments": ["read", "edit"], "payment_methods": ["read", "edit"]},
    settings=PaymentsSettings,
    events={
        PAYMENT_SUCCEEDED: PaymentEvent,
        PAYMENT_FAILED: PaymentEvent,
        BALANCE_TOPPED_UP: BalanceToppedUp,
    },
    errors={IdempotencyConflict: 409, TopUpInProgress: 409, ProviderError: 502, MethodNotFound: 404},
    jobs=JOBS,
    hookspecs=hookspecs,
    hooks=[hooks, merging],
)

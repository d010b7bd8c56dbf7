"""Plugin `payments`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_payments import hooks, hookspecs, merging
from subsvc_payments.crediting import BALANCE_TOPPED_UP, PAYMENT_FAILED, PAYMENT_SUCCEEDED
from subsvc_payments.jobs import JOBS
from subsvc_payments.models import Payment
from subsvc_payments.providers import ProviderError
from subsvc_payments.records import IdempotencyConflict
from subsvc_payments.routes import balance
from subsvc_payments.schemas import BalanceToppedUp, PaymentEvent
from subsvc_payments.settings import PaymentsSettings
from subsvc_payments.topup import TopUpInProgress

plugin = Plugin(
    models=[Payment],
    endpoints=[balance],
    settings=PaymentsSettings,
    events={
        PAYMENT_SUCCEEDED: PaymentEvent,
        PAYMENT_FAILED: PaymentEvent,
        BALANCE_TOPPED_UP: BalanceToppedUp,
    },
    errors={IdempotencyConflict: 409, TopUpInProgress: 409, ProviderError: 502},
    jobs=JOBS,
    hookspecs=hookspecs,
    hooks=[hooks, merging],
)

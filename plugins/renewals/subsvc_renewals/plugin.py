"""Plugin `renewals`: what it contributes to subsvc."""

from collections.abc import Callable

from starlette.applications import Starlette

from subsvc.jobs import Job
from subsvc.manifest import Plugin
from subsvc_renewals import renewing
from subsvc_renewals.errors import RenewalError
from subsvc_renewals.expiry import EXPIRE_JOB, EXPIRED_EVENT, expire_subscriptions
from subsvc_renewals.jobs import AUTOPAY_FAILED_EVENT, AUTOPAY_JOB, DAILY_JOB, run_autopay, run_daily_charges
from subsvc_renewals.models import AutopayAttempt
from subsvc_renewals.routes import router
from subsvc_renewals.schemas import AutopayFailed, SubscriptionExpired, SubscriptionRenewed
from subsvc_renewals.settings import RenewalsSettings


def _every(name: str) -> Callable[[Starlette], float | None]:
    """A job's interval: the setting ``name`` (0 = only when enqueued)."""

    def interval(app: Starlette) -> float | None:
        seconds: float = getattr(RenewalsSettings.of(app), name)
        return seconds or None

    return interval


plugin = Plugin(
    models=[AutopayAttempt],
    endpoints=[router],
    settings=RenewalsSettings,
    events={
        renewing.RENEWED_EVENT: SubscriptionRenewed,
        EXPIRED_EVENT: SubscriptionExpired,
        AUTOPAY_FAILED_EVENT: AutopayFailed,
    },
    errors={RenewalError: RenewalError.answer},
    jobs=[
        Job(AUTOPAY_JOB, run_autopay, every=_every("AUTOPAY_INTERVAL_SECONDS")),
        Job(DAILY_JOB, run_daily_charges, every=_every("DAILY_CHARGE_INTERVAL_SECONDS")),
        Job(EXPIRE_JOB, expire_subscriptions, every=_every("EXPIRY_INTERVAL_SECONDS")),
    ],
    hooks=[renewing],
)

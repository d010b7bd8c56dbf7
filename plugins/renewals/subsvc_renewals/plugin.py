"""Plugin `renewals`: what it contributes to subsvc."""

from collections.abc import Callable

from starlette.applications import Starlette

from subsvc.jobs import Job
from subsvc.manifest import Plugin
from subsvc_renewals.errors import RenewalError
from subsvc_renewals.expiry import EXPIRE_JOB, EXPIRED_EVENT, expire_subscriptions
from subsvc_renewals.models import AutopayAttempt
from subsvc_renewals.routes import router
from subsvc_renewals.schemas import SubscriptionExpired
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
    events={EXPIRED_EVENT: SubscriptionExpired},
    errors={RenewalError: RenewalError.answer},
    jobs=[Job(EXPIRE_JOB, expire_subscriptions, every=_every("EXPIRY_INTERVAL_SECONDS"))],
)

"""The provider auto-renewals (release 4.1.0); no HTTP here.

Platega: the payments plugin's provider protocol (``create``, ``fetch``, notifications) has
no recurring charge, and Platega's recurring API is not confirmed by its public
documentation (see README, "Platega's recurring API"). So, while Platega is configured, the
state of every subscription is "not available, not enabled", enabling and purchasing answer
503 ``PLATEGA_NOT_AVAILABLE`` and changing nothing (the subscription's balance autopay stays as
it is), and cancelling finds nothing to stop. While it is not configured, every operation is
503 ``PLATEGA_NOT_CONFIGURED``. Lava: no Lava provider plugin exists, so every operation is
503 ``LAVA_NOT_AVAILABLE``.
"""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_payments.api import provider_for
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription, SubscriptionSettings

from subsvc.api import HTTPError
from subsvc_recurrent.schemas import RecurrentCancelled, RecurrentState

PLATEGA = "platega"
LAVA = "lava"
PLATEGA_NOT_CONFIGURED = "Platega is not configured"
PLATEGA_NOT_AVAILABLE = "Platega recurrent payments are not available"
LAVA_NOT_AVAILABLE = "Lava recurrent payments are not available"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
NO_SUBSCRIPTION = "No subscription found"
NOTHING_TO_CANCEL = "No active auto-renewal for this subscription"


async def _configured(app: Starlette, provider: str) -> bool:
    return await provider_for(app, provider) is not None


async def require_platega(app: Starlette) -> None:
    """503 ``Platega is not configured`` unless the Platega provider is installed and set up."""
    if not await _configured(app, PLATEGA):
        raise HTTPError(503, PLATEGA_NOT_CONFIGURED)


async def lava_refused(app: Starlette) -> dict[str, Any]:
    """Every Lava operation: 503 ``Lava recurrent payments are not available``. No Lava
    provider plugin exists; one installed would still offer no recurring protocol to use."""
    raise HTTPError(503, LAVA_NOT_AVAILABLE)


async def subscription_of(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> Subscription:
    """The subscription a cabinet request means (multi-tariff mode as the subscriptions plugin
    resolves it): 404 ``Subscription not found`` for an id that is not the user's, 404 ``No
    subscription found`` without one."""
    multi = SubscriptionSettings.of(app).MULTI_TARIFF_ENABLED
    found = await subscriptions.resolve(session, user_id, subscription_id, multi=multi)
    if found is None:
        raise HTTPError(404, SUBSCRIPTION_NOT_FOUND if subscription_id is not None else NO_SUBSCRIPTION)
    return found


async def platega_state(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> RecurrentState:
    """The Platega auto-renewal of the user's subscription: never available nor enabled (see
    the module's note)."""
    await require_platega(app)
    subscription = await subscription_of(app, session, user_id, subscription_id)
    assert subscription.id is not None
    return RecurrentState(
        provider=PLATEGA,
        subscription_id=subscription.id,
        available=False,
        enabled=False,
        status=None,
        autopay_enabled=subscription.autopay_enabled,
        message=PLATEGA_NOT_AVAILABLE,
    )


async def enable_platega(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> RecurrentState:
    """Enable Platega's auto-renewal: after the subscription is found, 503 ``Platega recurrent
    payments are not available``, nothing changed."""
    await require_platega(app)
    await subscription_of(app, session, user_id, subscription_id)
    raise HTTPError(503, PLATEGA_NOT_AVAILABLE)


async def purchase_with_platega(
    app: Starlette, session: AsyncSession, user_id: int, tariff_id: int
) -> RecurrentState:
    """Buy a tariff paid by Platega's auto-renewal: 503 ``Platega recurrent payments are not
    available`` (nothing is created)."""
    await require_platega(app)
    raise HTTPError(503, PLATEGA_NOT_AVAILABLE)


async def cancel_platega(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> RecurrentCancelled:
    """Cancel Platega's auto-renewal of the subscription: there is none to stop."""
    await require_platega(app)
    await subscription_of(app, session, user_id, subscription_id)
    return RecurrentCancelled(cancelled=False, message=NOTHING_TO_CANCEL)

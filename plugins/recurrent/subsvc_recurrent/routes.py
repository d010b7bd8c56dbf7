"""Cabinet (access JWT, tag Cabinet Subscription, release 4.1.0):
`/cabinet/subscription/platega-recurrent[/enable,/purchase,/cancel]` and the same four of
`/cabinet/subscription/lava-recurrent`. (The recurring-payments terms are the pages plugin's.)"""

from __future__ import annotations

from typing import Annotated, Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import SubscriptionIdQuery

from subsvc.api import Query, Router
from subsvc.auth.principal import Principal
from subsvc_recurrent import service
from subsvc_recurrent.schemas import RecurrentCancelled, RecurrentState

router = Router(area="cabinet", tag="Cabinet Subscription")

TariffId = Annotated[int, Query(description="Tariff to subscribe to")]
FOUND = {404: f"{service.SUBSCRIPTION_NOT_FOUND} (not the user's) / {service.NO_SUBSCRIPTION}"}
PLATEGA_OFF = {503: f"{service.PLATEGA_NOT_CONFIGURED}"}
PLATEGA_UNAVAILABLE = {
    503: f"{service.PLATEGA_NOT_CONFIGURED} / {service.PLATEGA_NOT_AVAILABLE} (its recurring API is "
    "not confirmed: see the plugin's README)"
}
LAVA = {503: f"{service.LAVA_NOT_AVAILABLE} (no Lava provider plugin with recurring payments)"}


# --- Platega -------------------------------------------------------------------------------------


@router.get("/cabinet/subscription/platega-recurrent", responses={**FOUND, **PLATEGA_OFF})
async def get_platega_recurrent(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> RecurrentState:
    """Platega's SBP auto-renewal of the subscription: whether it can be set up and is active."""
    return await service.platega_state(request.app, session, principal.id, subscription_id)


@router.post("/cabinet/subscription/platega-recurrent/enable", responses={**FOUND, **PLATEGA_UNAVAILABLE})
async def enable_platega_recurrent(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> RecurrentState:
    """Enable Platega's SBP auto-renewal of the subscription (it would turn the balance autopay
    off); not available: 503, nothing changed."""
    return await service.enable_platega(request.app, session, principal.id, subscription_id)


@router.post("/cabinet/subscription/platega-recurrent/purchase", responses=PLATEGA_UNAVAILABLE)
async def purchase_with_platega_recurrent(
    request: Request, session: AsyncSession, principal: Principal, tariff_id: TariffId
) -> RecurrentState:
    """Buy a tariff paid by Platega's SBP auto-renewal; not available: 503, nothing created."""
    return await service.purchase_with_platega(request.app, session, principal.id, tariff_id)


@router.post("/cabinet/subscription/platega-recurrent/cancel", responses={**FOUND, **PLATEGA_OFF})
async def cancel_platega_recurrent(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> RecurrentCancelled:
    """Stop Platega's SBP auto-renewal of the subscription (never gated: a user can always
    stop being charged)."""
    return await service.cancel_platega(request.app, session, principal.id, subscription_id)


# --- Lava ----------------------------------------------------------------------------------------


@router.get("/cabinet/subscription/lava-recurrent", responses=LAVA)
async def get_lava_recurrent(
    request: Request, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> dict[str, Any]:
    """Lava's auto-renewal of the subscription: not available (503)."""
    return await service.lava_refused(request.app)


@router.post("/cabinet/subscription/lava-recurrent/enable", responses=LAVA)
async def enable_lava_recurrent(
    request: Request, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> dict[str, Any]:
    """Enable Lava's auto-renewal: not available (503)."""
    return await service.lava_refused(request.app)


@router.post("/cabinet/subscription/lava-recurrent/purchase", responses=LAVA)
async def purchase_with_lava_recurrent(
    request: Request, principal: Principal, tariff_id: TariffId
) -> dict[str, Any]:
    """Buy a tariff paid by Lava's auto-renewal: not available (503)."""
    return await service.lava_refused(request.app)


@router.post("/cabinet/subscription/lava-recurrent/cancel", responses=LAVA)
async def cancel_lava_recurrent(
    request: Request, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> dict[str, Any]:
    """Stop Lava's auto-renewal: not available (503)."""
    return await service.lava_refused(request.app)

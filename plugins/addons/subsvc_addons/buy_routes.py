"""Cabinet (access JWT), tag Cabinet Subscription: the paid add-ons of
``/cabinet/subscription`` bought from the balance (devices, traffic, countries) or kept as a
cart. Each takes the 4.1.0 query ``subscription_id`` (one of the user's own; default: the
current one)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import SubscriptionIdQuery

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_addons import buying, traffic_sale
from subsvc_addons.buying import RESTRICTED
from subsvc_addons.owned import NO_SUBSCRIPTION
from subsvc_addons.sale import NO_ACTIVE
from subsvc_addons.sale_schemas import (
    CartSaved,
    CountriesRequest,
    CountriesUpdated,
    DevicePurchaseRequest,
    DevicesPurchased,
    TrafficPurchased,
    TrafficPurchaseRequest,
    TrafficSwitched,
)

router = Router(area="cabinet", tag="Cabinet Subscription")
SHORT = "Insufficient balance: `{code: insufficient_funds, message, missing_amount, ...}`, the cart saved"
DEVICES_BOUGHT = {
    400: f"{NO_ACTIVE}; the subscription inactive, devices not sold, above the maximum",
    402: SHORT + " (`add_devices`; `required_kopeks`, `current_kopeks`, `missing_kopeks`)",
    403: RESTRICTED,
}
TRAFFIC_BOUGHT = {
    400: "The package is not sold for the subscription (the reference's texts)",
    402: SHORT + " (`add_traffic`)",
    403: RESTRICTED,
    404: f"{NO_SUBSCRIPTION}, or its tariff is gone",
}


@router.post("/cabinet/subscription/traffic", responses=TRAFFIC_BOUGHT)
async def purchase_traffic(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: TrafficPurchaseRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> TrafficPurchased:
    """Buy a traffic package from the balance (counted for the purchased traffic's days)."""
    return await buying.purchase_traffic(request.app, session, principal.id, subscription_id, payload.gb)


@router.put(
    "/cabinet/subscription/traffic",
    responses={
        400: "Already on it, not a tier of the table, a tariff's subscription",
        402: "Insufficient balance. Need {x.xx} RUB",
        403: f"{RESTRICTED}; {traffic_sale.PAID_ONLY}",
        404: NO_SUBSCRIPTION,
    },
)
async def switch_traffic_package(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: TrafficPurchaseRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> TrafficSwitched:
    """Put a classic subscription on another traffic tier: an upgrade pays the difference for
    the days left, a downgrade is free; the purchased traffic goes."""
    return await buying.switch_traffic(request.app, session, principal.id, subscription_id, payload.gb)


@router.post(
    "/cabinet/subscription/traffic/save-cart",
    responses={400: f"{NO_ACTIVE}, or the package is not sold", 404: "The subscription's tariff is gone"},
)
async def save_traffic_cart(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: TrafficPurchaseRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> CartSaved:
    """Keep a traffic package as the subscription's cart, for a top-up to buy."""
    return await buying.save_traffic_cart(request.app, session, principal.id, subscription_id, payload.gb)


@router.post(
    "/cabinet/subscription/devices",
    responses={**DEVICES_BOUGHT, 400: "The subscription inactive, devices not sold", 404: NO_SUBSCRIPTION},
)
async def purchase_devices_legacy(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: DevicePurchaseRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> DevicesPurchased:
    """Buy more devices from the balance (the older path of ``POST /devices/purchase``)."""
    return await buying.purchase_devices(
        request.app, session, principal.id, subscription_id, payload.devices, legacy=True
    )


@router.post("/cabinet/subscription/devices/purchase", responses=DEVICES_BOUGHT)
async def purchase_devices(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: DevicePurchaseRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> DevicesPurchased:
    """Buy more devices from the balance, priced for the subscription's days left."""
    return await buying.purchase_devices(request.app, session, principal.id, subscription_id, payload.devices)


@router.post("/cabinet/subscription/devices/save-cart", responses={400: DEVICES_BOUGHT[400]})
async def save_devices_cart(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: DevicePurchaseRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> CartSaved:
    """Keep more devices as the subscription's cart, for a top-up to buy."""
    return await buying.save_devices_cart(
        request.app, session, principal.id, subscription_id, payload.devices
    )


@router.post(
    "/cabinet/subscription/countries",
    responses={
        400: "A trial, no country selected, a country not available",
        402: "Insufficient balance. Need {x} RUB, have {y} RUB",
        403: RESTRICTED,
        404: NO_SUBSCRIPTION,
    },
)
async def update_countries(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: CountriesRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> CountriesUpdated:
    """Connect the subscription to exactly these servers: those added are paid for the days
    left, those removed are free (no refund)."""
    return await buying.update_countries(
        request.app, session, principal.id, subscription_id, payload.countries
    )

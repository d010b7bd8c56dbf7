"""Cabinet (access JWT), tag Cabinet Subscription: what the paid add-ons of
``/cabinet/subscription`` cost (devices, traffic, countries), and the device limit reduced.
Each takes the 4.1.0 query ``subscription_id`` (one of the user's own; default: the current
one)."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import SubscriptionIdQuery

from subsvc.api import Query, Router
from subsvc.auth.principal import Principal
from subsvc_addons import countries, device_sale, traffic_sale
from subsvc_addons.owned import NO_SUBSCRIPTION
from subsvc_addons.sale_schemas import (
    CountriesResponse,
    DevicePrice,
    DeviceReduced,
    DeviceReduceRequest,
    DeviceReductionInfo,
    TrafficPackage,
)

router = Router(area="cabinet", tag="Cabinet Subscription")


@router.get("/cabinet/subscription/traffic-packages")
async def get_traffic_packages(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> list[TrafficPackage]:
    """The traffic packages on sale for the subscription, at the price a purchase charges now."""
    return await traffic_sale.packages(request.app, session, principal.id, subscription_id)


@router.get("/cabinet/subscription/devices/price")
async def get_device_price(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    devices: Annotated[int, Query(ge=1, le=100)] = 1,
    subscription_id: SubscriptionIdQuery = None,
) -> DevicePrice:
    """What more devices cost now (``available`` false with the reason when they cannot be
    bought)."""
    return await device_sale.device_price(request.app, session, principal.id, subscription_id, devices)


@router.get("/cabinet/subscription/devices/reduction-info")
async def get_device_reduction_info(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> DeviceReductionInfo:
    """How far the device limit can go down, and the devices connected now."""
    return await device_sale.reduction_info(request.app, session, principal.id, subscription_id)


@router.post(
    "/cabinet/subscription/devices/reduce",
    responses={
        400: f"{device_sale.INVALID_LIMIT}; a trial, not below the current limit, below the least",
        404: NO_SUBSCRIPTION,
        502: device_sale.PANEL_FAILED,
    },
)
async def reduce_devices(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: DeviceReduceRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> DeviceReduced:
    """Lower the device limit (no refund): the devices above it are deleted in the panel
    first, then the new limit is pushed with the change."""
    return await device_sale.reduce_devices(
        request.app, session, principal.id, subscription_id, payload.new_device_limit
    )


@router.get("/cabinet/subscription/countries", responses={404: NO_SUBSCRIPTION})
async def get_available_countries(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> CountriesResponse:
    """The servers the user's promo group may connect to, their prices and those connected."""
    return await countries.countries(request.app, session, principal.id, subscription_id)

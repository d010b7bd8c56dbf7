"""``/miniapp/subscription/traffic-topup``, ``/servers``, ``/traffic`` and ``/devices``: the
addons plugin's purchases (its api), refusals in the object style (``{code, message}``; a
402 ``insufficient_funds`` as the cabinet's, its cart saved)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_addons.api import (
    TrafficPurchased,
    available_countries,
    device_price,
    purchase_devices,
    purchase_traffic,
    reduce_devices,
    switch_traffic,
    traffic_packages,
    update_countries,
)

from subsvc.api import HTTPError, Router, price_label
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc_miniapp import auth, dashboard
from subsvc_miniapp.addon_schemas import (
    MiniAppSubscriptionBillingContext,
    MiniAppSubscriptionCurrentSettings,
    MiniAppSubscriptionDeviceOption,
    MiniAppSubscriptionDevicesSettings,
    MiniAppSubscriptionDevicesUpdateRequest,
    MiniAppSubscriptionServerOption,
    MiniAppSubscriptionServersSettings,
    MiniAppSubscriptionServersUpdateRequest,
    MiniAppSubscriptionSettings,
    MiniAppSubscriptionSettingsRequest,
    MiniAppSubscriptionSettingsResponse,
    MiniAppSubscriptionTrafficOption,
    MiniAppSubscriptionTrafficSettings,
    MiniAppSubscriptionTrafficUpdateRequest,
    MiniAppSubscriptionUpdateResponse,
    MiniAppTrafficTopupRequest,
)
from subsvc_miniapp.dashboard import gb_label
from subsvc_miniapp.dashboard_schemas import MiniAppConnectedServer
from subsvc_miniapp.refusals import object_style

router = Router(area="web", tag="miniapp")
REFUSED = "`{code, message}`: the addons plugin's refusal (the cabinet's text, `code` of the status)"
PAID: dict[int, str] = {
    **auth.USER_RESPONSES,
    **PANEL_RESPONSES,
    400: REFUSED,
    402: "`{code: insufficient_funds, message, ...}`: the balance is short (the cabinet's cart saved)",
    403: REFUSED,
    404: "`{code: subscription_not_found}`, or the user's refusals",
    409: REFUSED,
}
NO_SERVERS = {"code": "invalid_request", "message": "At least one country must be selected"}
NO_TRAFFIC = {"code": "invalid_request", "message": "Invalid traffic package"}
NO_DEVICES = {"code": "invalid_request", "message": "Invalid new_device_limit"}
UNCHANGED = {"code": "invalid_request", "message": "Device limit is unchanged"}


@router.post(
    "/miniapp/subscription/traffic-topup", public=True, response_model=TrafficPurchased, responses=PAID
)
async def purchase_traffic_topup(
    request: Request, session: AsyncSession, body: MiniAppTrafficTopupRequest
) -> TrafficPurchased:
    """Buy a traffic package for the subscription from the balance (the cabinet's traffic
    purchase: its packages, prices, limits; 402 with the `add_traffic` cart saved)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    return await object_style(purchase_traffic(request.app, session, user.id, body.subscriptionId, body.gb))


@router.post("/miniapp/subscription/servers", public=True, responses=PAID)
async def update_subscription_servers(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionServersUpdateRequest
) -> MiniAppSubscriptionUpdateResponse:
    """Set the subscription's servers (countries): the added ones paid for the days left, the
    removed ones free (the cabinet's countries update). The list is the first of `servers`,
    `squads`, `server_uuids`, `squad_uuids` given."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    squads = next((s for s in (body.servers, body.squads, body.server_uuids, body.squad_uuids) if s), None)
    if not squads:
        raise HTTPError(400, NO_SERVERS)
    done = await object_style(update_countries(request.app, session, user.id, body.subscription_id, squads))
    return MiniAppSubscriptionUpdateResponse(message=done.message)


@router.post("/miniapp/subscription/traffic", public=True, responses=PAID)
async def update_subscription_traffic(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionTrafficUpdateRequest
) -> MiniAppSubscriptionUpdateResponse:
    """Switch a classic subscription to another traffic package (`traffic` or `traffic_gb`):
    an upgrade pays the difference for the days left, a downgrade is free (the cabinet's)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    gb = body.traffic if body.traffic is not None else body.traffic_gb
    if gb is None:
        raise HTTPError(400, NO_TRAFFIC)
    done = await object_style(switch_traffic(request.app, session, user.id, body.subscription_id, gb))
    return MiniAppSubscriptionUpdateResponse(message=done.message)


@router.post("/miniapp/subscription/devices", public=True, responses=PAID)
async def update_subscription_devices(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionDevicesUpdateRequest
) -> MiniAppSubscriptionUpdateResponse:
    """Set the subscription's device limit (`devices` or `device_limit`, the new total): more
    are bought (the cabinet's device purchase, 402 with the `add_devices` cart saved), fewer
    reduce it (the cabinet's reduction: the excess devices deleted in the panel, no refund)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    wanted = body.devices if body.devices is not None else body.device_limit
    if wanted is None or wanted < 1:
        raise HTTPError(400, NO_DEVICES)
    app = request.app
    subscription = await dashboard.current_subscription(app, session, user.id, body.subscription_id)
    if subscription is None:
        raise HTTPError(404, {"code": "subscription_not_found", "message": "No subscription found"})
    if wanted == subscription.device_limit:
        raise HTTPError(400, UNCHANGED)
    if wanted > subscription.device_limit:
        more = wanted - subscription.device_limit
        bought = await object_style(purchase_devices(app, session, user.id, subscription.id, more))
        return MiniAppSubscriptionUpdateResponse(message=bought.message)
    reduced = await object_style(reduce_devices(app, session, user.id, subscription.id, wanted))
    return MiniAppSubscriptionUpdateResponse(message=reduced.message)


@router.post(
    "/miniapp/subscription/settings",
    public=True,
    responses={**auth.USER_RESPONSES, 404: "`{code: subscription_not_found}`, or the user's refusals"},
)
async def get_subscription_settings(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionSettingsRequest
) -> MiniAppSubscriptionSettingsResponse:
    """What the subscription has and what may be changed, at the user's prices now (the
    addons plugin's countries, traffic packages and device price)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    app = request.app
    subscription = await dashboard.current_subscription(app, session, user.id, body.subscription_id)
    if subscription is None or subscription.id is None:
        raise HTTPError(404, {"code": "subscription_not_found", "message": "No subscription found"})
    offered = await object_style(available_countries(app, session, user.id, subscription.id))
    packages = await traffic_packages(app, session, user.id, subscription.id)
    one_more = await device_price(app, session, user.id, subscription.id, 1)
    names = {country.uuid: country.name for country in offered.countries}
    servers = MiniAppSubscriptionServersSettings(
        available=[
            MiniAppSubscriptionServerOption(
                uuid=c.uuid,
                name=c.name,
                price_kopeks=c.prorated_price_kopeks,
                price_label=price_label(c.prorated_price_kopeks),
                discount_percent=c.discount_percent,
                is_connected=c.is_connected,
                is_available=c.is_available,
            )
            for c in offered.countries
        ],
        min=1,
        max=len(offered.countries),
        can_update=not offered.has_trial and bool(offered.countries),
    )
    traffic = MiniAppSubscriptionTrafficSettings(
        options=[
            MiniAppSubscriptionTrafficOption(
                value=p.gb,
                label=gb_label(p.gb),
                price_kopeks=p.price_kopeks,
                price_label=price_label(p.price_kopeks),
                is_current=p.gb == subscription.traffic_limit_gb,
            )
            for p in packages
        ],
        can_update=bool(packages),
        current_value=subscription.traffic_limit_gb,
    )
    unit = one_more.price_per_device_kopeks
    devices = MiniAppSubscriptionDevicesSettings(
        options=[
            MiniAppSubscriptionDeviceOption(
                value=subscription.device_limit, label=str(subscription.device_limit)
            )
        ],
        can_update=one_more.available,
        min=1,
        max=one_more.max_device_limit or subscription.device_limit,
        current=subscription.device_limit,
        price_kopeks=unit,
        price_label=price_label(unit) if unit is not None else None,
    )
    return MiniAppSubscriptionSettingsResponse(
        settings=MiniAppSubscriptionSettings(
            subscription_id=subscription.id,
            current=MiniAppSubscriptionCurrentSettings(
                servers=[
                    MiniAppConnectedServer(uuid=uuid, name=names.get(uuid, uuid))
                    for uuid in subscription.connected_squads
                ],
                traffic_limit_gb=subscription.traffic_limit_gb,
                traffic_limit_label=gb_label(subscription.traffic_limit_gb),
                device_limit=subscription.device_limit,
            ),
            servers=servers,
            traffic=traffic,
            devices=devices,
            billing=MiniAppSubscriptionBillingContext(
                months_remaining=max(1, round(offered.days_left / 30)),
                period_hint_days=offered.days_left,
                renews_at=subscription.end_date.isoformat(),
            ),
        )
    )

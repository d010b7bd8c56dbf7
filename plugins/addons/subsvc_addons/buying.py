"""The paid add-ons: each checked and priced under the user's and the subscription's locks,
then paid through the sales kernel's ``charge`` and applied through subscriptions' functions
in the same transaction (they commit together or not at all). Short of money: the purchase is
kept as a cart (devices, traffic) and committed before the 402 answer; a top-up completes it
through :func:`sales_complete_cart` (the sales plugin's hook)."""

from __future__ import annotations

from typing import Any, Final

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing.api import price_label
from subsvc_sales import api as sales
from subsvc_sales.api import InsufficientFunds
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription, SubscriptionSettings, TrafficPurchase

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_addons import countries, device_sale, traffic_sale
from subsvc_addons.owned import NO_SUBSCRIPTION
from subsvc_addons.sale import NO_ACTIVE, Target, rubles_text, target
from subsvc_addons.sale_schemas import (
    CartSaved,
    CountriesUpdated,
    DevicesPurchased,
    TrafficPurchased,
    TrafficSwitched,
)

ADD_DEVICES: Final = "add_devices"
ADD_TRAFFIC: Final = "add_traffic"
INSUFFICIENT = "Insufficient balance"
RESTRICTED = "Subscription purchases are restricted for this account"


async def _not_restricted(app: Starlette, session: AsyncSession, user_id: int) -> None:
    """403 when an administrator restricted the user's purchases (sales' check)."""
    await sales.check_not_restricted(app, session, user_id, RESTRICTED)


# --- devices -------------------------------------------------------------------------------------


async def _devices_target(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, legacy: bool
) -> Target:
    missing, status = (NO_SUBSCRIPTION, 404) if legacy else (NO_ACTIVE, 400)
    return await target(
        app, session, user_id, subscription_id, now=utcnow(), lock=True, missing=missing, status=status
    )


async def _buy_devices(
    app: Starlette, session: AsyncSession, offer: device_sale.DeviceOffer
) -> DevicesPurchased:
    """Pay for the devices and raise the limit (the cap was checked under the lock: the
    money never moves without the devices, nor without its transaction row)."""
    subscription = offer.target.subscription
    charged = await sales.charge(
        app, session, subscription.user_id, offer.quote, description=f"Докупка устройств: {offer.devices}"
    )
    wanted = offer.new_limit
    await subscriptions.add_devices(
        session,
        services(app).events,
        SubscriptionSettings.of(app),
        subscription,
        offer.devices,
        now=offer.target.now,
    )
    if subscription.device_limit != wanted:  # a cap of subscriptions' we did not know: pay nothing
        raise HTTPError(400, device_sale.max_devices_text(subscription.device_limit))
    quote = offer.quote
    return DevicesPurchased(
        message=f"Добавлено устройств: {offer.devices}",
        devices_added=offer.devices,
        new_device_limit=subscription.device_limit,
        amount_paid_kopeks=charged.amount_kopeks,
        amount_paid_label=price_label(charged.amount_kopeks),
        new_balance_kopeks=charged.balance_kopeks,
        discount_percent=quote.discount_percent,
        discount_kopeks=quote.discount_kopeks,
        base_price_kopeks=quote.original_kopeks,
    )


async def purchase_devices(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None,
    devices: int,
    *,
    legacy: bool = False,
) -> DevicesPurchased:
    """Buy ``devices`` more devices for the subscription from the balance. Short: the cart
    ``add_devices`` is saved (committed) and the 402 answer raised. ``legacy`` (``POST
    /devices``): no subscription is 404 ``No subscription found`` instead of the 400."""
    await _not_restricted(app, session, user_id)
    found = await _devices_target(app, session, user_id, subscription_id, legacy)
    offer = device_sale.offer(app, found, devices)
    try:
        bought = await _buy_devices(app, session, offer)
    except InsufficientFunds as short:
        answer = await _cart_kept(
            app,
            session,
            short,
            found,
            ADD_DEVICES,
            {"devices": devices},
            required_kopeks=short.required_kopeks,
            current_kopeks=short.balance_kopeks,
            missing_kopeks=short.missing_kopeks,
        )
        if isinstance(answer.detail, dict):  # the kernel's first parameter is named ``error`` too
            answer.detail = {**answer.detail, "error": INSUFFICIENT}
        raise answer from None
    await sales.drop_cart(app, session, user_id, subscription_id=found.subscription.id)
    return bought


async def save_devices_cart(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, devices: int
) -> CartSaved:
    """Keep ``devices`` more devices as the subscription's cart (checked as the purchase
    checks them) for a top-up to complete."""
    found = await _devices_target(app, session, user_id, subscription_id, False)
    device_sale.offer(app, found, devices)
    await sales.save_cart(
        app, session, user_id, ADD_DEVICES, {"devices": devices}, subscription_id=found.subscription.id
    )
    return CartSaved()


# --- traffic -------------------------------------------------------------------------------------


async def _traffic_target(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> Target:
    return await target(app, session, user_id, subscription_id, now=utcnow(), lock=True)


async def _buy_traffic(
    app: Starlette, session: AsyncSession, offer: traffic_sale.TrafficOffer
) -> TrafficPurchased:
    subscription = offer.target.subscription
    charged = await sales.charge(
        app, session, subscription.user_id, offer.quote, description=f"Докупка трафика: {offer.gb} ГБ"
    )
    events = services(app).events
    if offer.gb == 0:
        await subscriptions.set_traffic(session, events, subscription, limit_gb=0)
    else:
        await subscriptions.add_traffic(
            session, events, SubscriptionSettings.of(app), subscription, offer.gb, now=offer.target.now
        )
    quote = offer.quote
    discount = quote.discount_kopeks
    return TrafficPurchased(
        gb_added=offer.gb,
        new_traffic_limit_gb=subscription.traffic_limit_gb,
        amount_paid_kopeks=charged.amount_kopeks,
        new_balance_kopeks=charged.balance_kopeks,
        discount_percent=quote.discount_percent,
        discount_kopeks=discount,
        base_price_kopeks=quote.original_kopeks if discount else None,
    )


async def purchase_traffic(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, gb: int
) -> TrafficPurchased:
    """Buy a traffic package for the subscription from the balance. Short: the cart
    ``add_traffic`` is saved (committed) and the 402 answer raised."""
    await _not_restricted(app, session, user_id)
    found = await _traffic_target(app, session, user_id, subscription_id)
    offer = traffic_sale.offer(app, found, gb)
    try:
        bought = await _buy_traffic(app, session, offer)
    except InsufficientFunds as short:
        raise await _cart_kept(app, session, short, found, ADD_TRAFFIC, {"gb": gb}) from None
    await sales.drop_cart(app, session, user_id, subscription_id=found.subscription.id)
    return bought


async def save_traffic_cart(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, gb: int
) -> CartSaved:
    """Keep a traffic package as the subscription's cart (checked and priced exactly as the
    purchase: the cart is priced again when it is completed)."""
    found = await target(
        app, session, user_id, subscription_id, now=utcnow(), lock=True, missing=NO_ACTIVE, status=400
    )
    if found.subscription.traffic_limit_gb == 0:
        raise HTTPError(400, "У вас уже безлимитный трафик")
    traffic_sale.offer(app, found, gb)
    await sales.save_cart(
        app, session, user_id, ADD_TRAFFIC, {"gb": gb}, subscription_id=found.subscription.id
    )
    return CartSaved()


async def switch_traffic(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, gb: int
) -> TrafficSwitched:
    """Put a classic subscription on another traffic tier: an upgrade pays the difference for
    the days left, a downgrade is free (no refund); the purchased traffic goes."""
    await _not_restricted(app, session, user_id)
    found = await _traffic_target(app, session, user_id, subscription_id)
    current, quote = traffic_sale.switch_offer(app, found, gb)
    subscription = found.subscription
    try:
        charged = await sales.charge(
            app, session, user_id, quote, description=f"Смена пакета трафика: {gb} ГБ"
        )
    except InsufficientFunds as short:
        raise HTTPError(402, f"Insufficient balance. Need {rubles_text(short.required_kopeks)} RUB") from None
    await _drop_traffic_purchases(app, session, subscription)
    await subscriptions.set_traffic(session, services(app).events, subscription, limit_gb=gb)
    return TrafficSwitched(
        message=f"Traffic package switched to {gb} GB" if gb else "Traffic package switched to unlimited",
        old_traffic_gb=current,
        new_traffic_gb=gb,
        is_upgrade=quote.final_kopeks > 0,
        amount_paid_kopeks=charged.amount_kopeks,
        new_balance_kopeks=charged.balance_kopeks,
    )


async def _drop_traffic_purchases(app: Starlette, session: AsyncSession, subscription: Subscription) -> None:
    query = select(TrafficPurchase.id).where(col(TrafficPurchase.subscription_id) == subscription.id)
    for purchase_id in (await session.exec(query)).all():
        assert purchase_id is not None
        await subscriptions.remove_traffic_purchase(session, services(app).events, subscription, purchase_id)


# --- countries -----------------------------------------------------------------------------------


async def update_countries(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, squads: list[str]
) -> CountriesUpdated:
    """Connect the subscription to exactly these squads: the added ones paid for the days
    left, the removed ones free (no refund)."""
    await _not_restricted(app, session, user_id)
    found = await target(app, session, user_id, subscription_id, now=utcnow(), lock=True)
    wanted = await countries.change(app, session, found, squads)
    try:
        charged = await sales.charge(
            app, session, user_id, wanted.quote, description=f"Добавление серверов: {len(wanted.added)}"
        )
    except InsufficientFunds as short:
        need, have = rubles_text(short.required_kopeks), rubles_text(short.balance_kopeks)
        raise HTTPError(402, f"Insufficient balance. Need {need} RUB, have {have} RUB") from None
    subscription = await subscriptions.set_squads(
        session, services(app).events, found.subscription, wanted.squads, now=found.now
    )
    return CountriesUpdated(
        added=wanted.added,
        removed=wanted.removed,
        connected_squads=list(subscription.connected_squads),
        amount_paid_kopeks=charged.amount_kopeks,
        new_balance_kopeks=charged.balance_kopeks,
    )


# --- carts ---------------------------------------------------------------------------------------


async def _cart_kept(
    app: Starlette,
    session: AsyncSession,
    short: InsufficientFunds,
    found: Target,
    mode: sales.CartMode,
    payload: dict[str, Any],
    **fields: Any,
) -> HTTPError:
    """The 402 answer (raise it) once the subscription's cart is saved and committed (with
    nothing else: the charge changed nothing) before the answer rolls the request back."""
    subscription = found.subscription
    return await sales.payment_required_with_cart(
        app, session, short, subscription.user_id, mode, payload, subscription_id=subscription.id, **fields
    )


@hookimpl
async def sales_complete_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    mode: str,
    payload: dict[str, Any],
    subscription_id: int | None,
) -> bool | None:
    """A saved ``add_devices`` or ``add_traffic`` cart bought now (priced again, checked
    again): ``True`` bought, ``False`` still short, no longer possible or the user's purchases
    restricted (nothing changed), ``None`` another mode."""
    if mode not in (ADD_DEVICES, ADD_TRAFFIC):
        return None
    try:
        await _not_restricted(app, session, user_id)
        found = await target(app, session, user_id, subscription_id, now=utcnow(), lock=True)
        if mode == ADD_DEVICES:
            await _buy_devices(app, session, device_sale.offer(app, found, int(payload["devices"])))
        else:
            await _buy_traffic(app, session, traffic_sale.offer(app, found, int(payload["gb"])))
    except (InsufficientFunds, HTTPError, KeyError, TypeError, ValueError):
        return False
    return True

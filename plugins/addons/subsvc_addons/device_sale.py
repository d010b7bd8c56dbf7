"""Devices bought on top of a subscription (priced by the engine's ``devices_addon``) and the
device limit reduced: the rules and texts of the reference (behaviours-money §2.2)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing import api as pricing
from subsvc_pricing.api import Quote
from subsvc_subscriptions import api as subscriptions

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.panel import PanelError
from subsvc.services import services
from subsvc_addons.devices import panel_devices
from subsvc_addons.owned import PANEL
from subsvc_addons.sale import (
    INACTIVE,
    USABLE,
    Target,
    device_cap,
    device_unit,
    included_devices,
    target,
)
from subsvc_addons.sale_schemas import DevicePrice, DeviceReduced, DeviceReductionInfo
from subsvc_addons.settings import AddonsSettings

NOT_SOLD = "Докупка устройств недоступна"
NO_ACTIVE_SHORT = "Нет активной подписки"
TRIAL_REDUCE = "Device reduction is not available for trial subscriptions"
INVALID_LIMIT = "Invalid new_device_limit"
PANEL_FAILED = "Не удалось обновить VPN-панель. Попробуйте позже."


def max_devices_text(cap: int) -> str:
    return f"Максимальное количество устройств: {cap}"


@dataclass(frozen=True)
class DeviceOffer:
    """``devices`` more devices for the subscription: how many are paid for and their price."""

    target: Target
    devices: int
    unit_kopeks: int
    chargeable: int
    cap: int | None
    quote: Quote

    @property
    def new_limit(self) -> int:
        return self.target.subscription.device_limit + self.devices


def offer(app: Starlette, found: Target, devices: int) -> DeviceOffer:
    """Price ``devices`` more devices, or refuse them with the reference's 400 texts: a
    subscription that is not active, devices not sold (off, or no price), above the cap.
    Devices up to the included ones are free (a limit below them)."""
    if found.status not in USABLE:
        raise HTTPError(400, INACTIVE)
    unit = device_unit(app, found.tariff)
    if not AddonsSettings.of(app).DEVICES_PURCHASE_ENABLED or unit <= 0:
        raise HTTPError(400, NOT_SOLD)
    current = found.subscription.device_limit
    cap = device_cap(app, found.tariff)
    if cap is not None and current + devices > cap:
        raise HTTPError(400, max_devices_text(cap))
    free = max(0, included_devices(app, found.tariff) - current)
    chargeable = max(0, devices - free)
    end = found.subscription.end_date
    quote = pricing.devices_addon(unit, chargeable, found.buyer, end=end, now=found.now)
    return DeviceOffer(found, devices, unit, chargeable, cap, quote)


async def device_price(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, devices: int
) -> DevicePrice:
    """What ``devices`` more devices cost now (``available`` false with the reason when they
    cannot be bought)."""
    try:
        found = await target(app, session, user_id, subscription_id, now=utcnow(), lock=False)
    except HTTPError:
        return DevicePrice(available=False, reason=NO_ACTIVE_SHORT)
    if found.status not in USABLE:
        return DevicePrice(available=False, reason=NO_ACTIVE_SHORT)
    try:
        priced = offer(app, found, devices)
    except HTTPError as refused:
        return DevicePrice(
            available=False,
            reason=str(refused.detail),
            current_device_limit=found.subscription.device_limit,
            max_device_limit=device_cap(app, found.tariff),
        )
    quote = priced.quote
    return DevicePrice(
        available=True,
        devices=devices,
        current_device_limit=found.subscription.device_limit,
        new_device_limit=priced.new_limit,
        max_device_limit=priced.cap,
        chargeable_devices=priced.chargeable,
        price_per_device_kopeks=priced.unit_kopeks,
        price_per_device_label=pricing.price_label(priced.unit_kopeks),
        days_left=found.days_left,
        base_price_kopeks=quote.original_kopeks,
        discount_percent=quote.discount_percent,
        discount_kopeks=quote.discount_kopeks,
        total_price_kopeks=quote.final_kopeks,
        total_price_label=pricing.price_label(quote.final_kopeks),
        balance_kopeks=found.buyer.balance_kopeks,
        has_enough_balance=found.buyer.balance_kopeks >= quote.final_kopeks,
        missing_amount_kopeks=max(0, quote.final_kopeks - found.buyer.balance_kopeks),
    )


def min_device_limit(app: Starlette, found: Target) -> int:
    """1 with ``ALLOW_DEVICES_BELOW_TARIFF_LIMIT``, else the tariff's included devices (1
    outside tariffs)."""
    if AddonsSettings.of(app).ALLOW_DEVICES_BELOW_TARIFF_LIMIT or found.tariff is None:
        return 1
    return max(1, found.tariff.device_limit)


async def reduction_info(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> DeviceReductionInfo:
    """How far the device limit can go down, and the devices connected now (from the panel)."""
    try:
        found = await target(app, session, user_id, subscription_id, now=utcnow(), lock=False)
    except HTTPError:
        return DeviceReductionInfo(available=False, reason=NO_ACTIVE_SHORT)
    current = found.subscription.device_limit
    connected = len(await panel_devices(app, session, found.subscription))
    least = min_device_limit(app, found)
    reason = TRIAL_REDUCE if found.subscription.is_trial else None
    if reason is None and found.status not in USABLE:
        reason = INACTIVE
    return DeviceReductionInfo(
        available=reason is None,
        reason=reason,
        current_device_limit=current,
        min_device_limit=least,
        can_reduce=reason is None and current > least,
        connected_devices_count=connected,
    )


async def reduce_devices(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, new_limit: int
) -> DeviceReduced:
    """Lower the device limit (nothing is refunded): the connected devices above it (the last
    ones in the panel's order) are deleted in the panel first, then the new limit is queued
    for the panel with the change. A panel that fails leaves the limit as it was (502)."""
    if new_limit < 1:
        raise HTTPError(400, INVALID_LIMIT)
    found = await target(app, session, user_id, subscription_id, now=utcnow(), lock=True)
    subscription = found.subscription
    if subscription.is_trial:
        raise HTTPError(400, TRIAL_REDUCE)
    if found.status not in USABLE:
        raise HTTPError(400, INACTIVE)
    current = subscription.device_limit
    if new_limit >= current:
        raise HTTPError(400, f"New device limit must be less than the current one ({current})")
    least = min_device_limit(app, found)
    if new_limit < least:
        raise HTTPError(400, f"Device limit cannot be less than {least}")
    removed = await _remove_excess(app, session, found, new_limit)
    await subscriptions.set_device_limit(session, services(app).events, subscription, new_limit)
    return DeviceReduced(
        message=f"Device limit reduced from {current} to {new_limit}",
        old_device_limit=current,
        new_device_limit=new_limit,
        removed_devices=removed,
        removed_devices_count=len(removed),
    )


async def _remove_excess(app: Starlette, session: AsyncSession, found: Target, new_limit: int) -> list[str]:
    """Delete the devices above ``new_limit`` in the panel (none to delete without a panel or
    an account: the limit alone is pushed); 502 when the panel fails."""
    panel = await PANEL.find(app)
    if panel is None:
        return []
    assert found.subscription.id is not None
    try:
        account = await panel.account(session, found.subscription.id)
        if account is None:
            return []
        excess = [device.hwid for device in list(await panel.devices(account.uuid))[new_limit:]]
        for hwid in excess:
            await panel.delete_device(account.uuid, hwid)
    except PanelError:
        raise HTTPError(502, PANEL_FAILED) from None
    return excess

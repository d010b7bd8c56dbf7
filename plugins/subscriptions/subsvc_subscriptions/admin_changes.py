"""Administrators' direct changes of a subscription (the cabinet's user management): shorten,
set the end date, traffic, devices or autopay, cancel, activate, remove a traffic purchase,
remove rows, and take over the VPN panel's state; no HTTP in here.

Like the rules of :mod:`subsvc_subscriptions.service`, each change (autopay and the panel's
own state excepted: nothing for the panel to hear) marks the subscription for the panel and
publishes ``subscription.changed`` in the caller's transaction. The caller holds the row lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import fits_int32
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc_subscriptions.models import PANEL_SYNC_SYNCED, Subscription, TrafficPurchase
from subsvc_subscriptions.schemas import SubscriptionStatus
from subsvc_subscriptions.service import END_OUT_OF_RANGE, RuleViolation
from subsvc_subscriptions.service import record_change as _changed


class TrafficPurchaseNotFound(LookupError):
    """The subscription has no traffic purchase with that id (404)."""


async def shorten(
    session: AsyncSession, events: EventBus, subscription: Subscription, days: int
) -> Subscription:
    """Take days off the end; an end that is no longer ahead makes it ``expired``."""
    try:
        subscription.end_date = subscription.end_date - timedelta(days=days)
    except OverflowError:
        raise RuleViolation(END_OUT_OF_RANGE) from None
    if subscription.end_date <= utcnow():
        subscription.status = SubscriptionStatus.EXPIRED
    return await _changed(session, events, subscription, "extended")


async def set_end_date(
    session: AsyncSession, events: EventBus, subscription: Subscription, end: datetime
) -> Subscription:
    """Set the end: ``active`` when it is ahead, else ``expired``."""
    subscription.end_date = end
    subscription.status = SubscriptionStatus.ACTIVE if end > utcnow() else SubscriptionStatus.EXPIRED
    return await _changed(session, events, subscription, "extended")


async def set_traffic(
    session: AsyncSession,
    events: EventBus,
    subscription: Subscription,
    *,
    limit_gb: int | None = None,
    used_gb: float | None = None,
) -> Subscription:
    """Set the traffic limit and/or the traffic used (``None`` leaves it)."""
    if limit_gb is not None:
        subscription.traffic_limit_gb = limit_gb
    if used_gb is not None:
        subscription.traffic_used_gb = used_gb
    return await _changed(session, events, subscription, "traffic")


async def set_device_limit(
    session: AsyncSession, events: EventBus, subscription: Subscription, limit: int
) -> Subscription:
    """Set the device limit."""
    subscription.device_limit = limit
    return await _changed(session, events, subscription, "devices")


async def set_autopay(
    session: AsyncSession, subscription: Subscription, enabled: bool, *, days_before: int | None = None
) -> Subscription:
    """Switch autopay (and set the days before the end it charges, when given); nothing the
    panel shows, so no event."""
    subscription.autopay_enabled = enabled
    if days_before is not None:
        subscription.autopay_days_before = days_before
    subscription.updated_at = utcnow()
    await session.flush()
    return subscription


async def cancel(session: AsyncSession, events: EventBus, subscription: Subscription) -> Subscription:
    """End it now (``expired``); the change is ``disabled``."""
    subscription.status = SubscriptionStatus.EXPIRED
    subscription.end_date = utcnow()
    return await _changed(session, events, subscription, "disabled")


async def activate(
    session: AsyncSession, events: EventBus, subscription: Subscription, days: int
) -> Subscription:
    """Make it ``active``; one that has ended gets ``days`` from now."""
    now = utcnow()
    subscription.status = SubscriptionStatus.ACTIVE
    if subscription.end_date <= now:
        subscription.end_date = now + timedelta(days=days)
    return await _changed(session, events, subscription, "extended")


async def remove_traffic_purchase(
    session: AsyncSession, events: EventBus, subscription: Subscription, purchase_id: int
) -> int:
    """Delete one of the subscription's traffic purchases and take its traffic off the limit
    and the purchased traffic (never below 0); returns the gigabytes removed.

    Raises :class:`TrafficPurchaseNotFound`.
    """
    purchase = None
    if fits_int32(purchase_id):
        query = select(TrafficPurchase).where(
            col(TrafficPurchase.id) == purchase_id, col(TrafficPurchase.subscription_id) == subscription.id
        )
        purchase = (await session.exec(query)).first()
    if purchase is None:
        raise TrafficPurchaseNotFound(purchase_id)
    removed = purchase.traffic_gb
    subscription.traffic_limit_gb = max(0, subscription.traffic_limit_gb - removed)
    subscription.purchased_traffic_gb = max(0, subscription.purchased_traffic_gb - removed)
    await session.exec(delete(TrafficPurchase).where(col(TrafficPurchase.id) == purchase_id))
    await _changed(session, events, subscription, "traffic")
    return removed


async def remove(session: AsyncSession, rows: Sequence[Subscription]) -> int:
    """Delete the rows for good (their traffic purchases go with them); returns how many.
    Nothing is published: disable them first (:func:`~subsvc_subscriptions.service.disable`)
    when the panel integration must hear of it."""
    for subscription in rows:
        await session.delete(subscription)
    await session.flush()
    return len(rows)


@dataclass(frozen=True)
class PanelState:
    """What the VPN panel says of a subscription; ``None`` leaves a field as it is."""

    end_date: datetime | None = None
    status: str | None = None
    traffic_limit_gb: int | None = None
    device_limit: int | None = None
    connected_squads: list[str] | None = None
    subscription_url: str | None = None
    subscription_crypto_link: str | None = None
    traffic_used_gb: float | None = None


def _shown(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def take_panel_state(subscription: Subscription, state: PanelState, now: datetime) -> dict[str, Any]:
    """Write the panel's state into the subscription and mark it ``synced`` (the panel has
    it already: no event); returns ``{field: {old, new}}`` of what changed (times in ISO)."""
    changes: dict[str, Any] = {}
    for field in fields(state):
        value = getattr(state, field.name)
        old = getattr(subscription, field.name)
        if value is None or old == value:
            continue
        changes[field.name] = {"old": _shown(old), "new": _shown(value)}
        setattr(subscription, field.name, value)
    if changes:
        subscription.updated_at = now
    subscription.panel_sync_state = PANEL_SYNC_SYNCED
    return changes


def mark_synced(subscription: Subscription) -> None:
    """The panel has the subscription's state (it was just pushed there)."""
    subscription.panel_sync_state = PANEL_SYNC_SYNCED

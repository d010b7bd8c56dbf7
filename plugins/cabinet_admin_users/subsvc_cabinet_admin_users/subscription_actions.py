"""``POST /cabinet/admin/users/{id}/subscription``: one action on the user's subscription.

Creating, extending and adding traffic are the subscriptions plugin's rules. The other
actions (shorten, set the end date, set traffic or devices, autopay, cancel, activate,
remove a traffic purchase) have no rule there yet, so they are written here, and mark the
subscription for the panel and publish ``subscription.changed`` through the same helper the
subscriptions service uses.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

from sqlalchemy import delete
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import (
    ChangeKind,
    Subscription,
    SubscriptionSettings,
    SubscriptionStatus,
    TrafficPurchase,
)
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc_cabinet_admin_users import changes
from subsvc_cabinet_admin_users.lookup import current_subscription, fits_row_id
from subsvc_cabinet_admin_users.schemas import UpdateSubscriptionRequest

DEFAULT_CREATE_DAYS = 30
ACTIVATE_DAYS = 30
NO_SUBSCRIPTION = "User has no subscription"
ALREADY_HAS = "User already has a subscription"
TARIFF_NOT_FOUND = "Tariff not found"
PURCHASE_NOT_FOUND = "Traffic purchase not found"
T = TypeVar("T")


class ActionRefused(ValueError):
    """The action cannot run with this request (400); the message says why."""


class ActionNotFound(LookupError):
    """What the action needs does not exist (404); the message says what."""


@dataclass(frozen=True)
class Outcome:
    subscription: Subscription
    message: str


@dataclass(frozen=True)
class Context:
    app: Starlette
    session: AsyncSession
    user: User
    request: UpdateSubscriptionRequest

    @property
    def events(self) -> EventBus:
        return changes.events(self.app)

    @property
    def settings(self) -> SubscriptionSettings:
        settings: SubscriptionSettings = self.app.state.settings_of["subscriptions"]
        return settings


def _changed(context: Context, subscription: Subscription, kind: ChangeKind) -> None:
    """Mark for the panel and publish ``subscription.changed`` (the service's own helper)."""
    subscription.updated_at = utcnow()
    subscriptions.publish_change(context.session, context.events, subscription, kind)


@contextmanager
def _rules_refusals() -> Iterator[None]:
    """A refusal by the subscriptions plugin's rules refuses the action (400, its message)."""
    try:
        yield
    except subscriptions.RuleViolation as exc:
        raise ActionRefused(str(exc)) from None


def _required(value: T | None, name: str) -> T:
    if value is None:
        raise ActionRefused(f"{name} parameter is required")
    return value


async def _create(context: Context) -> Outcome:
    request = context.request
    assert context.user.id is not None
    if request.tariff_id is not None:
        raise ActionNotFound(TARIFF_NOT_FOUND)
    if await current_subscription(context.session, context.user.id) is not None:
        raise ActionRefused(ALREADY_HAS)
    days = request.days or DEFAULT_CREATE_DAYS
    order = subscriptions.Order(
        is_trial=bool(request.is_trial),
        days=days,
        traffic_limit_gb=request.traffic_limit_gb,
        device_limit=request.device_limit,
        replace_existing=True,  # a pending or disabled leftover is reused, not kept beside
    )
    with _rules_refusals():
        created = await subscriptions.create_or_replace(
            context.session, context.events, context.settings, context.user, order
        )
    return Outcome(created, f"Subscription created for {days} days")


async def _extend(context: Context, subscription: Subscription) -> Outcome:
    days = _required(context.request.days, "days")
    with _rules_refusals():
        await subscriptions.extend(context.session, context.events, subscription, days)
    return Outcome(subscription, f"Subscription extended by {days} days")


async def _shorten(context: Context, subscription: Subscription) -> Outcome:
    days = _required(context.request.days, "days")
    try:
        subscription.end_date = subscription.end_date - timedelta(days=days)
    except OverflowError:
        raise ActionRefused(subscriptions.END_OUT_OF_RANGE) from None
    if subscription.end_date <= utcnow():
        subscription.status = SubscriptionStatus.EXPIRED
    _changed(context, subscription, "extended")
    return Outcome(subscription, f"Subscription shortened by {days} days")


async def _set_end_date(context: Context, subscription: Subscription) -> Outcome:
    end = _required(context.request.end_date, "end_date")
    subscription.end_date = end
    subscription.status = SubscriptionStatus.ACTIVE if end > utcnow() else SubscriptionStatus.EXPIRED
    _changed(context, subscription, "extended")
    return Outcome(subscription, f"Subscription end date set to {end.isoformat()}")


async def _change_tariff(context: Context, subscription: Subscription) -> Outcome:
    _required(context.request.tariff_id, "tariff_id")
    raise ActionNotFound(TARIFF_NOT_FOUND)  # no tariffs plugin keeps tariffs yet


async def _set_traffic(context: Context, subscription: Subscription) -> Outcome:
    request = context.request
    if request.traffic_limit_gb is None and request.traffic_used_gb is None:
        raise ActionRefused("traffic_limit_gb or traffic_used_gb parameter is required")
    if request.traffic_limit_gb is not None:
        subscription.traffic_limit_gb = request.traffic_limit_gb
    if request.traffic_used_gb is not None:
        subscription.traffic_used_gb = request.traffic_used_gb
    _changed(context, subscription, "traffic")
    return Outcome(subscription, "Traffic settings updated")


async def _toggle_autopay(context: Context, subscription: Subscription) -> Outcome:
    enabled = _required(context.request.autopay_enabled, "autopay_enabled")
    subscription.autopay_enabled = enabled
    subscription.updated_at = utcnow()  # nothing the panel shows: no panel change
    return Outcome(subscription, f"Autopay {'enabled' if enabled else 'disabled'}")


async def _cancel(context: Context, subscription: Subscription) -> Outcome:
    subscription.status = SubscriptionStatus.EXPIRED
    subscription.end_date = utcnow()
    _changed(context, subscription, "disabled")
    return Outcome(subscription, "Subscription cancelled")


async def _activate(context: Context, subscription: Subscription) -> Outcome:
    now = utcnow()
    subscription.status = SubscriptionStatus.ACTIVE
    if subscription.end_date <= now:
        subscription.end_date = now + timedelta(days=ACTIVATE_DAYS)
    _changed(context, subscription, "extended")
    return Outcome(subscription, "Subscription activated")


async def _add_traffic(context: Context, subscription: Subscription) -> Outcome:
    gb = _required(context.request.traffic_gb, "traffic_gb")
    with _rules_refusals():
        await subscriptions.add_traffic(context.session, context.events, context.settings, subscription, gb)
    days = context.settings.TRAFFIC_PURCHASE_DAYS
    return Outcome(subscription, f"Added {gb} GB traffic ({days} days)")


async def _remove_traffic(context: Context, subscription: Subscription) -> Outcome:
    purchase_id = _required(context.request.traffic_purchase_id, "traffic_purchase_id")
    purchase = None
    if fits_row_id(purchase_id):
        query = select(TrafficPurchase).where(
            col(TrafficPurchase.id) == purchase_id, col(TrafficPurchase.subscription_id) == subscription.id
        )
        purchase = (await context.session.exec(query)).first()
    if purchase is None:
        raise ActionNotFound(PURCHASE_NOT_FOUND)
    removed = purchase.traffic_gb
    subscription.traffic_limit_gb = max(0, subscription.traffic_limit_gb - removed)
    subscription.purchased_traffic_gb = max(0, subscription.purchased_traffic_gb - removed)
    await context.session.exec(delete(TrafficPurchase).where(col(TrafficPurchase.id) == purchase_id))
    _changed(context, subscription, "traffic")
    return Outcome(subscription, f"Removed {removed} GB traffic package")


async def _set_device_limit(context: Context, subscription: Subscription) -> Outcome:
    limit = _required(context.request.device_limit, "device_limit")
    subscription.device_limit = limit
    _changed(context, subscription, "devices")
    return Outcome(subscription, f"Device limit set to {limit}")


Action = Callable[[Context, Subscription], Awaitable[Outcome]]
ACTIONS: dict[str, Action] = {
    "extend": _extend,
    "shorten": _shorten,
    "set_end_date": _set_end_date,
    "change_tariff": _change_tariff,
    "set_traffic": _set_traffic,
    "toggle_autopay": _toggle_autopay,
    "cancel": _cancel,
    "activate": _activate,
    "add_traffic": _add_traffic,
    "remove_traffic": _remove_traffic,
    "set_device_limit": _set_device_limit,
}


async def run(
    app: Starlette, session: AsyncSession, user: User, request: UpdateSubscriptionRequest
) -> Outcome:
    """Run the request's action on the user's current subscription (locked), or create one.

    Raises :class:`ActionRefused` (400) and :class:`ActionNotFound` (404).
    """
    assert user.id is not None
    context = Context(app, session, user, request)
    action = request.action.strip().lower()
    if action == "create":
        outcome = await _create(context)
    else:
        handler = ACTIONS.get(action)
        if handler is None:
            raise ActionRefused(f"Unknown action: {request.action}")
        subscription = await current_subscription(session, user.id, for_update=True)
        if subscription is None:
            raise ActionNotFound(NO_SUBSCRIPTION)
        outcome = await handler(context, subscription)
    await session.flush()
    return outcome

"""``POST /cabinet/admin/users/{id}/subscription``: one action on the user's subscription.

Every change is the subscriptions plugin's (only it writes subscriptions): its rules create,
extend and add traffic, its administrators' changes shorten, set the end date, traffic or
devices, switch autopay, cancel, activate and remove a traffic purchase; each marks the
subscription for the panel and publishes ``subscription.changed`` (autopay excepted). This
module reads the request, picks the action and words the answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription, SubscriptionSettings
from subsvc_users.api import User

from subsvc.events import EventBus
from subsvc_cabinet_admin_users import changes
from subsvc_cabinet_admin_users.lookup import chosen_subscription, current_subscription
from subsvc_cabinet_admin_users.schemas import UpdateSubscriptionRequest

DEFAULT_CREATE_DAYS = 30
ACTIVATE_DAYS = 30
NO_SUBSCRIPTION = "User has no subscription"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
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
        return SubscriptionSettings.of(self.app)


Action = Callable[[Context, Subscription], Awaitable[Outcome]]


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
    created = await subscriptions.create_or_replace(
        context.session, context.events, context.settings, context.user, order
    )
    return Outcome(created, f"Subscription created for {days} days")


DaysChange = Callable[[AsyncSession, EventBus, Subscription, int], Awaitable[Subscription]]


def _by_days(change: DaysChange, done: str) -> Action:
    """The action that moves the end by the request's `days` (``change``); ``done``: how the
    answer says it (``extended``, ``shortened``)."""

    async def act(context: Context, subscription: Subscription) -> Outcome:
        days = _required(context.request.days, "days")
        await change(context.session, context.events, subscription, days)
        return Outcome(subscription, f"Subscription {done} by {days} days")

    return act


async def _set_end_date(context: Context, subscription: Subscription) -> Outcome:
    end = _required(context.request.end_date, "end_date")
    await subscriptions.set_end_date(context.session, context.events, subscription, end)
    return Outcome(subscription, f"Subscription end date set to {end.isoformat()}")


async def _change_tariff(context: Context, subscription: Subscription) -> Outcome:
    _required(context.request.tariff_id, "tariff_id")
    raise ActionNotFound(TARIFF_NOT_FOUND)  # no tariffs plugin keeps tariffs yet


async def _set_traffic(context: Context, subscription: Subscription) -> Outcome:
    request = context.request
    if request.traffic_limit_gb is None and request.traffic_used_gb is None:
        raise ActionRefused("traffic_limit_gb or traffic_used_gb parameter is required")
    await subscriptions.set_traffic(
        context.session,
        context.events,
        subscription,
        limit_gb=request.traffic_limit_gb,
        used_gb=request.traffic_used_gb,
    )
    return Outcome(subscription, "Traffic settings updated")


async def _toggle_autopay(context: Context, subscription: Subscription) -> Outcome:
    enabled = _required(context.request.autopay_enabled, "autopay_enabled")
    await subscriptions.set_autopay(context.session, subscription, enabled)
    return Outcome(subscription, f"Autopay {'enabled' if enabled else 'disabled'}")


async def _cancel(context: Context, subscription: Subscription) -> Outcome:
    await subscriptions.cancel(context.session, context.events, subscription)
    return Outcome(subscription, "Subscription cancelled")


async def _activate(context: Context, subscription: Subscription) -> Outcome:
    await subscriptions.activate(context.session, context.events, subscription, ACTIVATE_DAYS)
    return Outcome(subscription, "Subscription activated")


async def _add_traffic(context: Context, subscription: Subscription) -> Outcome:
    gb = _required(context.request.traffic_gb, "traffic_gb")
    await subscriptions.add_traffic(context.session, context.events, context.settings, subscription, gb)
    days = context.settings.TRAFFIC_PURCHASE_DAYS
    return Outcome(subscription, f"Added {gb} GB traffic ({days} days)")


async def _remove_traffic(context: Context, subscription: Subscription) -> Outcome:
    purchase_id = _required(context.request.traffic_purchase_id, "traffic_purchase_id")
    try:
        removed = await subscriptions.remove_traffic_purchase(
            context.session, context.events, subscription, purchase_id
        )
    except subscriptions.TrafficPurchaseNotFound:
        raise ActionNotFound(PURCHASE_NOT_FOUND) from None
    return Outcome(subscription, f"Removed {removed} GB traffic package")


async def _set_device_limit(context: Context, subscription: Subscription) -> Outcome:
    limit = _required(context.request.device_limit, "device_limit")
    await subscriptions.set_device_limit(context.session, context.events, subscription, limit)
    return Outcome(subscription, f"Device limit set to {limit}")


ACTIONS: dict[str, Action] = {
    "extend": _by_days(subscriptions.extend, "extended"),
    "shorten": _by_days(subscriptions.shorten, "shortened"),
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
    """Run the request's action on the user's current subscription, or the one of theirs
    ``subscription_id`` names (locked), or create one.

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
        subscription = await chosen_subscription(session, user.id, request.subscription_id, for_update=True)
        if subscription is None:
            raise ActionNotFound(
                NO_SUBSCRIPTION if request.subscription_id is None else SUBSCRIPTION_NOT_FOUND
            )
        outcome = await handler(context, subscription)
    await session.flush()
    return outcome

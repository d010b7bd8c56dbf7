"""One action applied to one target, in the caller's transaction; no HTTP in here.

Every change is its owner's: subscriptions through ``subsvc_subscriptions.api`` (which marks
them for the panel sync queue and publishes ``subscription.changed``), the balance through
``subsvc_billing.api.deposit`` (a ``deposit`` transaction, idempotent by the item's key), the
promo group and deletion through ``subsvc_users.api``. An outcome the rules refuse is returned
(``error``); a target that does not exist is ``skipped``; a dry run changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing import api as billing
from subsvc_promo_groups.api import ensure_default_group, find_group
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription, SubscriptionSettings, SubscriptionStatus
from subsvc_tariffs.api import Tariff, find_tariff, lock_for_use
from subsvc_users import api as users
from subsvc_users.api import User, UserUpdateRequest

from subsvc.api import fits_int32
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc.services import services
from subsvc_bulk_actions.models import ERROR, SKIPPED, SUCCESS
from subsvc_bulk_actions.schemas import BulkActionParams, BulkActionType

A = BulkActionType
ACTIVATE_DAYS = 30
USER_NOT_FOUND = "User not found"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
NO_SUBSCRIPTION = "No subscription found"
TARIFF_NOT_FOUND = "Tariff not found"
USER_LEVEL = frozenset({A.ADD_BALANCE, A.ASSIGN_PROMO_GROUP, A.GRANT_SUBSCRIPTION, A.DELETE_USER})
"""Actions on the user, not on one of their subscriptions (refused with ``subscription_ids``)."""


@dataclass(frozen=True)
class Outcome:
    status: str
    message: str


def done(message: str) -> Outcome:
    return Outcome(SUCCESS, message)


def refused(message: str) -> Outcome:
    return Outcome(ERROR, message)


@dataclass(frozen=True)
class Target:
    """What one item applies: the run's action and parameters, and the item's key."""

    app: Starlette
    session: AsyncSession
    action: BulkActionType
    params: BulkActionParams
    dry_run: bool
    actor_user_id: int
    key: str

    @property
    def events(self) -> EventBus:
        bus: EventBus = services(self.app).events
        return bus

    @property
    def settings(self) -> SubscriptionSettings:
        return SubscriptionSettings.of(self.app)

    def days(self) -> int:
        assert self.params.days is not None  # checked with the request
        return self.params.days

    async def tariff(self) -> Tariff | None:
        assert self.params.tariff_id is not None  # checked with the request
        return await lock_for_use(self.session, self.params.tariff_id)


async def lock_user(session: AsyncSession, user_id: int) -> User | None:
    """The user, its row locked until the transaction ends (``None``: no such user)."""
    if not fits_int32(user_id):
        return None
    query = select(User).where(col(User.id) == user_id).with_for_update()
    return (await session.exec(query)).first()


async def lock_users(session: AsyncSession, user_ids: Sequence[int]) -> dict[int, User]:
    """The users of a batch by id, their rows locked in one statement (in id order)."""
    wanted = sorted({user_id for user_id in user_ids if fits_int32(user_id)})
    if not wanted:
        return {}
    query = select(User).where(col(User.id).in_(wanted)).order_by(col(User.id)).with_for_update()
    return {user.id: user for user in (await session.exec(query)).all() if user.id is not None}


async def lock_subscription(session: AsyncSession, subscription_id: int) -> Subscription | None:
    return await subscriptions.get(session, subscription_id, for_update=True)


SubscriptionAction = Callable[[Target, User, Subscription], Awaitable[Outcome]]
UserAction = Callable[[Target, User], Awaitable[Outcome]]


async def _extend(target: Target, user: User, subscription: Subscription) -> Outcome:
    days = target.days()
    if target.dry_run:
        return done(f"Would extend subscription by {days} days")
    try:
        await subscriptions.extend(target.session, target.events, subscription, days)
    except subscriptions.RuleViolation as exc:
        return refused(str(exc))
    return done(f"Subscription extended by {days} days")


async def _cancel(target: Target, user: User, subscription: Subscription) -> Outcome:
    if target.dry_run:
        return done("Would cancel subscription")
    await subscriptions.cancel(target.session, target.events, subscription)
    return done("Subscription cancelled")


async def _activate(target: Target, user: User, subscription: Subscription) -> Outcome:
    if target.dry_run:
        return done("Would activate subscription")
    await subscriptions.activate(target.session, target.events, subscription, ACTIVATE_DAYS)
    return done("Subscription activated")


def _switched_devices(subscription: Subscription, old: Tariff | None, new: Tariff) -> int:
    """The new tariff's devices plus those bought above the old tariff's, within its maximum."""
    extra = max(0, subscription.device_limit - old.device_limit) if old is not None else 0
    limit = new.device_limit + extra
    return min(limit, new.max_device_limit) if new.max_device_limit else limit


async def _change_tariff(target: Target, user: User, subscription: Subscription) -> Outcome:
    tariff = await target.tariff()
    if tariff is None:
        return refused(TARIFF_NOT_FOUND)
    if target.dry_run:
        return done(f"Would change tariff to {tariff.name}")
    old = await find_tariff(target.session, subscription.tariff_id) if subscription.tariff_id else None
    terms = subscriptions.Terms(
        tariff_id=tariff.id,
        days=0,
        traffic_limit_gb=tariff.traffic_limit_gb,
        device_limit=_switched_devices(subscription, old, tariff),
        squads=list(tariff.allowed_squads) or list(subscription.connected_squads),
        is_daily=tariff.is_daily,
    )
    try:
        await subscriptions.switch_tariff(
            target.session,
            target.events,
            subscription,
            terms,
            end=subscription.end_date,
            now=utcnow(),
            keep_purchased_traffic=False,
        )
    except subscriptions.DuplicateTariff:
        return refused("User already has an active subscription for the target tariff")
    return done(f"Tariff changed to {tariff.name}")


async def _add_traffic(target: Target, user: User, subscription: Subscription) -> Outcome:
    gb = target.params.traffic_gb
    assert gb is not None  # checked with the request
    if subscription.traffic_limit_gb == 0:
        return refused("Traffic is unlimited")
    if target.dry_run:
        return done(f"Would add {gb} GB traffic")
    try:
        await subscriptions.add_traffic(target.session, target.events, target.settings, subscription, gb)
    except subscriptions.RuleViolation as exc:
        return refused(str(exc))
    return done(f"Added {gb} GB traffic")


async def _set_devices(target: Target, user: User, subscription: Subscription) -> Outcome:
    limit = target.params.device_limit
    assert limit is not None  # checked with the request
    if target.dry_run:
        return done(f"Would set devices to {limit}")
    await subscriptions.set_device_limit(target.session, target.events, subscription, limit)
    return done(f"Set devices to {limit}")


async def _delete_subscription(target: Target, user: User, subscription: Subscription) -> Outcome:
    live = subscription.status == SubscriptionStatus.ACTIVE and subscription.end_date > utcnow()
    if live and not subscription.is_trial and not target.params.force_delete_active_paid:
        return refused("Skipped: active paid subscription (set force_delete_active_paid)")
    if target.dry_run:
        return done("Would delete subscription")
    await subscriptions.disable(target.session, target.events, subscription)  # the panel hears it
    await subscriptions.remove(target.session, [subscription])
    return done("Subscription deleted")


async def _add_balance(target: Target, user: User) -> Outcome:
    amount = target.params.amount_kopeks
    assert amount is not None  # checked with the request
    rubles = f"{amount / 100:.2f}₽"
    if target.dry_run:
        return done(f"Would add {rubles} to balance")
    change = await billing.deposit(
        target.session,
        target.events,
        user,
        amount,
        idempotency_key=target.key,
        description=target.params.balance_description,
        notify_user=False,
        apply_topup_bonuses=False,
    )
    return done(f"Added {rubles} to balance (now {change.new_balance_kopeks / 100:.2f}₽)")


async def _assign_promo_group(target: Target, user: User) -> Outcome:
    group_id = target.params.promo_group_id
    if group_id is None:
        group = await ensure_default_group(target.session)
    else:
        found = await find_group(target.session, group_id)
        if found is None:
            return refused("Promo group not found")
        group = found
    if target.dry_run:
        return done(f"Would set promo group to {group.name}")
    if user.promo_group_id != group.id:
        await users.update_user(target.app, target.session, user, UserUpdateRequest(promo_group_id=group.id))
    return done(f"Promo group set to {group.name}")


async def _holds_already(target: Target, user: User, tariff: Tariff) -> str | None:
    assert user.id is not None
    if target.settings.MULTI_TARIFF_ENABLED:
        held = await subscriptions.of_user(target.session, user.id, tariff_id=tariff.id, live_only=True)
        return "Already has subscription for this tariff" if held else None
    now = utcnow()
    live = await subscriptions.of_user(target.session, user.id, live_only=True)
    return "Already has an active subscription" if any(s.end_date > now for s in live) else None


async def _grant_subscription(target: Target, user: User) -> Outcome:
    tariff, days = await target.tariff(), target.days()
    if tariff is None:
        return refused(TARIFF_NOT_FOUND)
    held = await _holds_already(target, user, tariff)
    if held is not None:
        return refused(held)
    if target.dry_run:
        return done(f"Would grant subscription: {tariff.name} for {days} days")
    terms = subscriptions.Terms(
        tariff_id=tariff.id,
        days=days,
        traffic_limit_gb=tariff.traffic_limit_gb,
        device_limit=tariff.device_limit,
        squads=list(tariff.allowed_squads),
        is_daily=tariff.is_daily,
    )
    try:
        await subscriptions.create_paid(
            target.session, target.events, target.settings, user, terms, now=utcnow()
        )
    except subscriptions.DuplicateTariff:
        return refused("Already has subscription for this tariff")
    except subscriptions.RuleViolation as exc:
        return refused(str(exc))
    return done(f"Subscription granted: {tariff.name} for {days} days")


async def _delete_user(target: Target, user: User) -> Outcome:
    assert user.id is not None
    if user.id == target.actor_user_id:
        return refused("You cannot delete yourself")
    if target.dry_run:
        return done("Would delete user")
    if target.params.delete_from_panel:
        for subscription in await subscriptions.of_user(target.session, user.id, for_update=True):
            await subscriptions.disable(target.session, target.events, subscription)
    await users.delete_user(target.app, target.session, user)
    return done("User deleted")


SUBSCRIPTION_ACTIONS: dict[BulkActionType, SubscriptionAction] = {
    A.EXTEND_SUBSCRIPTION: _extend,
    A.ADD_DAYS: _extend,
    A.CANCEL_SUBSCRIPTION: _cancel,
    A.ACTIVATE_SUBSCRIPTION: _activate,
    A.CHANGE_TARIFF: _change_tariff,
    A.ADD_TRAFFIC: _add_traffic,
    A.SET_DEVICES: _set_devices,
    A.DELETE_SUBSCRIPTION: _delete_subscription,
}
USER_ACTIONS: dict[BulkActionType, UserAction] = {
    A.ADD_BALANCE: _add_balance,
    A.ASSIGN_PROMO_GROUP: _assign_promo_group,
    A.GRANT_SUBSCRIPTION: _grant_subscription,
    A.DELETE_USER: _delete_user,
}


@dataclass(frozen=True)
class Applied:
    """An item's outcome and the user it concerned (0: none found)."""

    outcome: Outcome
    user_id: int
    username: str | None = None


async def to_user(target: Target, user_id: int, locked: Mapping[int, User] | None = None) -> Applied:
    """Apply the action to the user (their current subscription for a subscription action);
    ``locked``: the batch's users, locked already (:func:`lock_users`)."""
    user = locked.get(user_id) if locked is not None else await lock_user(target.session, user_id)
    if user is None:
        return Applied(Outcome(SKIPPED, USER_NOT_FOUND), user_id)
    user_action = USER_ACTIONS.get(target.action)
    if user_action is not None:
        return Applied(await user_action(target, user), user_id, user.username)
    subscription = await subscriptions.primary_of(target.session, user_id, for_update=True)
    if subscription is None:
        return Applied(refused(NO_SUBSCRIPTION), user_id, user.username)
    outcome = await SUBSCRIPTION_ACTIONS[target.action](target, user, subscription)
    return Applied(outcome, user_id, user.username)


async def to_subscription(target: Target, subscription_id: int) -> Applied:
    """Apply a subscription action to this subscription."""
    found = await subscriptions.get(target.session, subscription_id) if fits_int32(subscription_id) else None
    if found is None:
        return Applied(Outcome(SKIPPED, SUBSCRIPTION_NOT_FOUND), 0)
    user = await lock_user(target.session, found.user_id)  # the user first, as ``to_user`` locks
    subscription = await lock_subscription(target.session, subscription_id)
    if subscription is None:
        return Applied(Outcome(SKIPPED, SUBSCRIPTION_NOT_FOUND), 0)
    if user is None:
        return Applied(Outcome(SKIPPED, "User not found for subscription"), subscription.user_id)
    outcome = await SUBSCRIPTION_ACTIONS[target.action](target, user, subscription)
    return Applied(outcome, subscription.user_id, user.username)

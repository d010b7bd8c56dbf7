"""A user activates a promo code: checks, the claim of a use, the code's effect; no HTTP here.

Everything happens in the caller's transaction, so a refusal at any step (the handler
raises) leaves nothing behind: no use, no claimed slot, no money. The order:

1. the user's row is locked (``FOR UPDATE``): one activation per user at a time;
2. the code is read and checked: not used by this user already, active, within its dates,
   not used up; then the daily limit and "first purchase only";
3. the use row is inserted — ``(promocode_id, user_id)`` is unique, so a user counts once;
4. a slot is claimed with one conditional UPDATE (``current_uses < max_uses`` and still
   valid): concurrent activations by different users queue on the code's row and the ones
   that find it used up claim nothing, so ``max_uses`` is never passed;
5. the effect: balance through billing's atomic ``adjust_balance``, days and trials through
   the subscriptions service, the promo group through the users service, a discount here;
6. ``promocode.activated`` is published with the change.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import BindParameter, Insert, Update, and_, bindparam, func, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import adjust_balance
from subsvc_promo_groups.api import find_group
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import SubscriptionSettings
from subsvc_users.api import User, UserRuleError, UserUpdateRequest, update_user

from subsvc.api import INT32_MAX, from_attributes, rubles
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc.services import services
from subsvc_promocodes import discounts, service
from subsvc_promocodes.models import CODES, USES, PromoCode, PromoCodeType, PromoCodeUse
from subsvc_promocodes.schemas import PromoCodeActivated

ACTIVATED = "promocode.activated"

REFUSALS = {
    "not_found": "Promo code not found",
    "expired": "Promo code has expired",
    "inactive": "Promo code is deactivated",
    "not_yet_valid": "Promo code is not yet active",
    "used": "Promo code has been fully used",
    "already_used_by_user": "You have already used this promo code",
    "active_discount_exists": (
        "You already have an active discount. Deactivate it first via /deactivate-discount"
    ),
    "no_subscription_for_days": "This promo code requires an active or expired subscription",
    "trial_subscription_exists": "This promo code is only for users without a subscription",
    "not_first_purchase": "This promo code is only available for first purchase",
    "daily_limit": "Too many promo code activations today",
    "group_not_found": "Promo group not found",
    "subscription_not_found": "Subscription not found",
    "wrong_tariff": "This promo code is only valid for a subscription of another tariff",
}


class ActivationRefused(Exception):
    """The code cannot be activated by this user; ``message`` is the answer (400)."""

    def __init__(self, reason: str, message: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.message = message or REFUSALS[reason]


@dataclass
class Activation:
    """An applied code: the user's balance before and after, and what was granted."""

    code: PromoCode
    balance_before_kopeks: int
    balance_after_kopeks: int
    effects: list[str] = field(default_factory=list)

    @property
    def description(self) -> str:
        return "\n".join(self.effects) if self.effects else "Промокод активирован"


def refusal_of(code: PromoCode, now: datetime) -> str | None:
    """Why a code cannot be used now (``None``: it can)."""
    if code.current_uses >= code.max_uses:
        return "used"
    if not code.is_active:
        return "inactive"
    if code.valid_from > now:
        return "not_yet_valid"
    if code.valid_until is not None and code.valid_until < now:
        return "expired"
    return None


@functools.cache
def _use_insert(dialect: str) -> Insert:
    """``INSERT INTO promocode_uses ... ON CONFLICT (promocode_id, user_id) DO NOTHING
    RETURNING id``, built once per dialect."""
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return (
        make(USES)
        .values(
            promocode_id=bindparam("promocode_id"),
            user_id=bindparam("user_id"),
            used_at=bindparam("now"),
            previous_promo_group_id=None,
        )
        .on_conflict_do_nothing(index_elements=["promocode_id", "user_id"])
        .returning(USES.c.id)
    )


@functools.cache
def _claim() -> Update:
    """Take one use of a code that is still valid: ``current_uses + 1`` only while below
    ``max_uses``, active and within its dates; ``RETURNING current_uses``."""
    now: BindParameter[datetime] = bindparam("now")
    return (
        update(CODES)
        .where(
            CODES.c.id == bindparam("promocode_id"),
            CODES.c.current_uses < CODES.c.max_uses,
            CODES.c.is_active,
            CODES.c.valid_from <= now,
            or_(CODES.c.valid_until.is_(None), CODES.c.valid_until >= now),
        )
        .values(current_uses=CODES.c.current_uses + 1)
        .returning(CODES.c.current_uses)
    )


async def lock_user(session: AsyncSession, user_id: int) -> User | None:
    """The user with this internal id, locked for an activation or a deactivation (``None``:
    no such user)."""
    if not 1 <= user_id <= INT32_MAX:
        return None
    return (await session.exec(select(User).where(col(User.id) == user_id).with_for_update())).first()


async def _check_used(session: AsyncSession, user: User, code: PromoCode) -> None:
    """A user who used the code is told so (rather than that it is used up or over)."""
    used = select(col(PromoCodeUse.id)).where(
        col(PromoCodeUse.promocode_id) == code.id, col(PromoCodeUse.user_id) == user.id
    )
    if (await session.exec(used)).first() is not None:
        raise ActivationRefused("already_used_by_user")


async def _check_standing(
    session: AsyncSession, user: User, code: PromoCode, now: datetime, daily_limit: int
) -> None:
    if daily_limit > 0:
        recent = select(func.count()).where(
            and_(col(PromoCodeUse.user_id) == user.id, col(PromoCodeUse.used_at) > now - timedelta(hours=24))
        )
        if (await session.exec(recent)).one() >= daily_limit:
            raise ActivationRefused("daily_limit")
    if code.first_purchase_only and user.has_had_paid_subscription:
        raise ActivationRefused("not_first_purchase")


async def _claim_use(session: AsyncSession, user: User, code: PromoCode, now: datetime) -> int:
    """Insert the user's use row and take a slot of the code; its id, or a refusal."""
    dialect = session.get_bind().dialect.name
    parameters = {"promocode_id": code.id, "user_id": user.id, "now": now}
    use_id = (await session.exec(_use_insert(dialect), params=parameters)).scalar()
    if use_id is None:
        raise ActivationRefused("already_used_by_user")
    claimed = (await session.exec(_claim(), params=parameters)).first()
    if claimed is None:
        await session.refresh(code)  # what stopped it: used up, switched off or out of dates
        raise ActivationRefused(refusal_of(code, now) or "used")
    set_committed_value(code, "current_uses", claimed[0])
    return int(use_id)


async def activate(
    app: Starlette,
    session: AsyncSession,
    user: User,
    text: str,
    *,
    daily_limit: int,
    subscription_id: int | None = None,
) -> Activation:
    """Apply a code for ``user`` (whose row the caller locked with :func:`lock_user`); days and
    traffic go to ``subscription_id`` when given (see :func:`_target`).

    Raises :class:`ActivationRefused` with the reference's reason; the caller rolls back.
    """
    assert user.id is not None
    now = utcnow()
    code = await service.find_by_code(session, text) if text.strip() else None
    if code is None:
        raise ActivationRefused("not_found")
    await _check_used(session, user, code)
    reason = refusal_of(code, now)
    if reason is not None:
        raise ActivationRefused(reason)
    await _check_standing(session, user, code, now, daily_limit)
    use_id = await _claim_use(session, user, code, now)

    activation = Activation(code, user.balance_kopeks, user.balance_kopeks)
    events: EventBus = services(app).events
    kind = PromoCodeType(code.type)
    if kind == PromoCodeType.DISCOUNT:
        await _grant_discount(app, session, user, code, now, activation)
    if kind in (PromoCodeType.SUBSCRIPTION_DAYS, PromoCodeType.BALANCE_AND_DAYS):
        await _add_days_and_traffic(app, session, user, code, subscription_id, activation)
    if kind in (PromoCodeType.BALANCE, PromoCodeType.BALANCE_AND_DAYS) and code.balance_bonus_kopeks > 0:
        change = await adjust_balance(
            session, events, user, code.balance_bonus_kopeks, description=f"Бонус по промокоду {code.code}"
        )
        activation.balance_before_kopeks = change.old_balance_kopeks
        activation.balance_after_kopeks = change.new_balance_kopeks
        activation.effects.append(f"Баланс пополнен на {rubles(code.balance_bonus_kopeks)}₽")
    if kind == PromoCodeType.TRIAL_SUBSCRIPTION:
        await _start_trial(app, session, user, code, activation)
    if code.promo_group_id is not None or kind == PromoCodeType.PROMO_GROUP:
        await _join_group(app, session, user, code, use_id, activation)

    assert code.id is not None
    payload = from_attributes(
        PromoCodeActivated, code, promocode_id=code.id, user_id=user.id, activated_at=now
    )
    events.publish(session, ACTIVATED, payload)
    return activation


async def _grant_discount(
    app: Starlette, session: AsyncSession, user: User, code: PromoCode, now: datetime, activation: Activation
) -> None:
    assert user.id is not None
    if await discounts.active(session, user.id, now) or await discounts.other_discount(app, session, user.id):
        raise ActivationRefused("active_discount_exists")
    percent, hours = code.balance_bonus_kopeks, code.subscription_days
    expires_at = now + timedelta(hours=hours) if hours > 0 else None
    await discounts.grant(session, user.id, code, percent, expires_at)
    if expires_at is None:
        activation.effects.append(f"Получена скидка {percent}% до первой покупки")
    else:
        activation.effects.append(f"Получена скидка {percent}% (действует {hours} ч.)")


async def _target(
    session: AsyncSession, user_id: int, code: PromoCode, subscription_id: int | None
) -> subscriptions.Subscription:
    """The subscription that gets the days and traffic, locked: the one named (it must be the
    user's), else for a tariff-bound code the user's newest subscription of that tariff, else
    the current one. A tariff-bound code refuses a subscription of another tariff."""
    if subscription_id is not None:
        found = await subscriptions.resolve(session, user_id, subscription_id, multi=True, for_update=True)
        if found is None:
            raise ActivationRefused("subscription_not_found")
    elif code.tariff_id is not None:
        held = await subscriptions.of_user(session, user_id, tariff_id=code.tariff_id, for_update=True)
        found = held[0] if held else None
    else:
        found = await subscriptions.primary_of(session, user_id, for_update=True)
    if found is None:
        raise ActivationRefused("no_subscription_for_days")
    if code.tariff_id is not None and found.tariff_id != code.tariff_id:
        raise ActivationRefused("wrong_tariff")
    return found


async def _add_days_and_traffic(
    app: Starlette,
    session: AsyncSession,
    user: User,
    code: PromoCode,
    subscription_id: int | None,
    activation: Activation,
) -> None:
    """Days and traffic go to the target subscription (of any status: an expired or disabled
    one comes back to life); without one the code cannot be used."""
    if code.subscription_days <= 0 and code.traffic_gb <= 0:
        return
    assert user.id is not None
    subscription = await _target(session, user.id, code, subscription_id)
    events: EventBus = services(app).events
    settings = SubscriptionSettings.of(app)
    try:
        if code.subscription_days > 0:
            await subscriptions.extend(session, events, subscription, code.subscription_days)
            activation.effects.append(f"Подписка продлена на {code.subscription_days} дней")
        if code.traffic_gb > 0:
            await subscriptions.add_traffic(session, events, settings, subscription, code.traffic_gb)
            activation.effects.append(f"Добавлено {code.traffic_gb} ГБ трафика")
    except subscriptions.RuleViolation as exc:
        raise ActivationRefused("subscription", str(exc)) from None
    if code.subscription_days > 0 and not user.has_had_paid_subscription:
        await update_user(app, session, user, UserUpdateRequest(has_had_paid_subscription=True))


async def _start_trial(
    app: Starlette, session: AsyncSession, user: User, code: PromoCode, activation: Activation
) -> None:
    """A trial of the code's days for a user with no subscription at all."""
    assert user.id is not None
    if await subscriptions.primary_of(session, user.id, for_update=True) is not None:
        raise ActivationRefused("trial_subscription_exists")
    settings = SubscriptionSettings.of(app)
    order = subscriptions.Order(is_trial=True, days=code.subscription_days or None)
    try:
        trial = await subscriptions.create_or_replace(session, services(app).events, settings, user, order)
    except subscriptions.RuleViolation as exc:
        raise ActivationRefused("subscription", str(exc)) from None
    days = (trial.end_date - trial.start_date).days
    activation.effects.append(f"Активирована тестовая подписка на {days} дней")


async def _join_group(
    app: Starlette, session: AsyncSession, user: User, code: PromoCode, use_id: int, activation: Activation
) -> None:
    """Move the user into the code's promo group, unless their group ranks higher (a group's
    priority: the reference keeps the highest-priority group as the user's)."""
    group = await find_group(session, code.promo_group_id) if code.promo_group_id is not None else None
    if group is None:
        if code.type == PromoCodeType.PROMO_GROUP:
            raise ActivationRefused("group_not_found")
        return
    if user.promo_group_id == group.id:
        activation.effects.append(f"Промогруппа «{group.name}» уже назначена")
        return
    current = await find_group(session, user.promo_group_id) if user.promo_group_id is not None else None
    if current is not None and current.priority > group.priority:
        activation.effects.append(f"Промогруппа «{current.name}» сохранена: её приоритет выше")
        return
    previous = user.promo_group_id
    try:
        await update_user(app, session, user, UserUpdateRequest(promo_group_id=group.id))
    except UserRuleError:  # the group was deleted meanwhile
        raise ActivationRefused("group_not_found") from None
    record_previous = update(USES).where(USES.c.id == use_id).values(previous_promo_group_id=previous)
    await session.exec(record_previous)
    activation.effects.append(f"Назначена промогруппа: {group.name}")


def answer_fields(activation: Activation) -> dict[str, Any]:
    """The cabinet answer's balances (rubles) and description."""
    return {
        "balance_before": rubles(activation.balance_before_kopeks),
        "balance_after": rubles(activation.balance_after_kopeks),
        "bonus_description": activation.description,
    }

"""Finding a user by internal id, the user's current subscription, and the administrator
settings row; no HTTP in here.

The cabinet's admin routes name users by their **internal** id (the Web API's ``/users/{id}``
tries a messenger id first; these do not), and by messenger id only under ``by-messenger``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import SubscriptionSummary, User

from subsvc.api import INT32_MAX, from_attributes
from subsvc.db import utcnow
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_cabinet_admin_users.schemas import UserIdentity

U = TypeVar("U", bound=UserIdentity)


def fits_row_id(value: int) -> bool:
    """Row ids are positive 32-bit integers; any other number names no row."""
    return 1 <= value <= INT32_MAX


async def find_user(session: AsyncSession, user_id: int, *, for_update: bool = False) -> User | None:
    """The user with this internal id (locked for a change with ``for_update``)."""
    if not fits_row_id(user_id):
        return None
    query = select(User).where(col(User.id) == user_id)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


def full_name(user: User) -> str:
    """First and last name; else the username, the messenger id, the e-mail, the row id."""
    name = " ".join(part for part in (user.first_name, user.last_name) if part).strip()
    if name:
        return name
    if user.username:
        return user.username
    if user.messenger_id is not None:
        return f"ID{user.messenger_id}"
    return user.email or f"User {user.id}"


def user_answer(model: type[U], user: User, **values: Any) -> U:
    """A user answer of this plugin (a list item, the detail): the user's fields of the
    model's names, the full name and the balance in rubles, ``values`` for the rest."""
    balance_rubles = round(user.balance_kopeks / 100, 2)
    return from_attributes(model, user, full_name=full_name(user), balance_rubles=balance_rubles, **values)


async def all_summaries(
    session: AsyncSession, user_ids: Sequence[int]
) -> dict[int, tuple[SubscriptionSummary | None, list[SubscriptionSummary]]]:
    """Per user, the subscription the user record shows as the user's (the subscriptions
    plugin's rule: the newest active or trial one, else the newest that is not an unpaid
    trial) and every subscription of the user, newest first, for a whole page in one query."""
    extras = await subscriptions.record_extras(session, user_ids)
    found: dict[int, tuple[SubscriptionSummary | None, list[SubscriptionSummary]]] = {}
    for user_id in user_ids:
        values = extras.get(user_id, {})
        primary = values.get("subscription")
        every = [SubscriptionSummary.model_validate(value) for value in values.get("subscriptions", ())]
        found[user_id] = (None if primary is None else SubscriptionSummary.model_validate(primary), every)
    return found


async def current_summaries(
    session: AsyncSession, user_ids: Sequence[int]
) -> dict[int, SubscriptionSummary | None]:
    """Per user, the subscription the user record shows as the user's (see :func:`all_summaries`)."""
    return {user_id: found[0] for user_id, found in (await all_summaries(session, user_ids)).items()}


async def current_subscription(
    session: AsyncSession, user_id: int, *, for_update: bool = False
) -> Subscription | None:
    """The user's current subscription (see :func:`current_summaries`), locked with ``for_update``."""
    summary = (await current_summaries(session, [user_id]))[user_id]
    if summary is None:
        return None
    return await subscriptions.get(session, summary.id, for_update=for_update)


async def owned_subscription(
    session: AsyncSession, user_id: int, subscription_id: int, *, for_update: bool = False
) -> Subscription | None:
    """The user's subscription with this id; ``None`` when there is none or it is another
    user's (a request cannot reach other users' subscriptions through this user)."""
    found = await subscriptions.get(session, subscription_id, for_update=for_update)
    return found if found is not None and found.user_id == user_id else None


async def chosen_subscription(
    session: AsyncSession, user_id: int, subscription_id: int | None, *, for_update: bool = False
) -> Subscription | None:
    """The subscription a request names with ``subscription_id`` (one of the user's), else the
    user's current one."""
    if subscription_id is None:
        return await current_subscription(session, user_id, for_update=for_update)
    return await owned_subscription(session, user_id, subscription_id, for_update=for_update)


async def user_subscriptions(
    session: AsyncSession, user_id: int, *, for_update: bool = False
) -> list[Subscription]:
    """Every subscription of the user, newest first."""
    query = (
        select(Subscription)
        .where(col(Subscription.user_id) == user_id)
        .order_by(col(Subscription.created_at).desc(), col(Subscription.id).desc())
    )
    if for_update:
        query = query.with_for_update()
    return list((await session.exec(query)).all())


async def admin_settings(session: AsyncSession, user_id: int) -> UserAdminSettings | None:
    """The user's administrator settings, when an administrator ever set any."""
    return await session.get(UserAdminSettings, user_id)


async def admin_settings_for_change(session: AsyncSession, user_id: int) -> UserAdminSettings:
    """The user's settings row, added (with the defaults) when missing. The caller holds the
    user's row lock, so two requests cannot both add it."""
    row = await session.get(UserAdminSettings, user_id, with_for_update=True)
    if row is None:
        row = UserAdminSettings(user_id=user_id, updated_at=utcnow())
        session.add(row)
    return row

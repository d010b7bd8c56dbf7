"""Administrators' changes to a user: status, restrictions, promo group, referral
commission, deletion, and the resets of subscriptions; no HTTP in here.

Each function runs in the caller's transaction, with the user's row locked by the caller.
The user's fields change through the users plugin's ``update_user`` (its rules and its
count cache), subscriptions through the subscriptions plugin's service (its
``subscription.changed`` events); this plugin publishes ``user.status_changed`` and
``user.deleted`` for what it adds.
"""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_promo_groups.api import PromoGroup, ensure_default_group, find_group
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription
from subsvc_users import api as users
from subsvc_users.api import User, UserStatus, UserUpdateRequest

from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc.services import services
from subsvc_cabinet_admin_users.lookup import admin_settings_for_change, fits_row_id, user_subscriptions
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_cabinet_admin_users.schemas import UpdateRestrictionsRequest, UserDeleted, UserStatusChanged

STATUS_CHANGED = "user.status_changed"
USER_DELETED = "user.deleted"


class ChangeRefused(ValueError):
    """A change the rules refuse; the message is the answer (400)."""


class PromoGroupMissing(LookupError):
    """No promo group has the id (404)."""


class UserInUse(RuntimeError):
    """Rows that cannot go with the user still point at it (409)."""


def events(app: Starlette) -> EventBus:
    """The application's event bus."""
    bus: EventBus = services(app).events
    return bus


async def set_status(
    app: Starlette, session: AsyncSession, user: User, status: UserStatus, *, reason: str | None, actor: int
) -> str:
    """Give the user ``status`` and publish ``user.status_changed``; returns the old status.
    Nothing changes (and nothing is published) when the user has it already."""
    assert user.id is not None
    old = user.status
    if old == status.value:
        return old
    await users.update_user(app, session, user, UserUpdateRequest(status=status.value))
    payload = UserStatusChanged(
        user_id=user.id,
        messenger_id=user.messenger_id,
        old_status=old,
        new_status=status.value,
        reason=reason,
        changed_by=actor,
    )
    events(app).publish(session, STATUS_CHANGED, payload)
    return old


async def set_restrictions(
    session: AsyncSession, user_id: int, change: UpdateRestrictionsRequest
) -> UserAdminSettings:
    """Change the given restrictions (null ones stay); an empty reason clears it."""
    row = await admin_settings_for_change(session, user_id)
    if change.restriction_topup is not None:
        row.restriction_topup = change.restriction_topup
    if change.restriction_subscription is not None:
        row.restriction_subscription = change.restriction_subscription
    if change.restriction_reason is not None:
        row.restriction_reason = change.restriction_reason.strip() or None
    row.updated_at = utcnow()
    await session.flush()
    return row


async def set_promo_group(
    app: Starlette, session: AsyncSession, user: User, group_id: int | None
) -> PromoGroup:
    """Move the user to the group; ``None`` means the default group (every user has one)."""
    if group_id is None:
        group = await ensure_default_group(session)
    else:
        found = await find_group(session, group_id) if fits_row_id(group_id) else None
        if found is None:
            raise PromoGroupMissing(group_id)
        group = found
    if user.promo_group_id != group.id:
        await users.update_user(app, session, user, UserUpdateRequest(promo_group_id=group.id))
    return group


async def set_commission(session: AsyncSession, user_id: int, percent: int | None) -> int | None:
    """Set the user's own referral commission (``None``: the default); returns the old one."""
    row = await admin_settings_for_change(session, user_id)
    old = row.referral_commission_percent
    row.referral_commission_percent = percent
    row.updated_at = utcnow()
    await session.flush()
    return old


async def delete_user(
    app: Starlette,
    session: AsyncSession,
    user: User,
    *,
    delete_from_panel: bool,
    reason: str | None,
    actor: int,
) -> None:
    """Remove the user row for good; its subscriptions, transactions and settings go with it
    (foreign keys cascade), its referrals lose their referrer. Publishes ``user.deleted``.
    The subscriptions are disabled first, like the resets do: that ``subscription.changed``
    is what tells the panel integration (it disables the panel user, even after the rows went).

    Raises :class:`UserInUse` when another table's rows still point at the user.
    """
    assert user.id is not None
    rows = await user_subscriptions(session, user.id, for_update=True)
    short_ids = [subscription.short_id for subscription in rows]
    await disable_subscriptions(app, session, rows)
    payload = UserDeleted(
        user_id=user.id,
        messenger_id=user.messenger_id,
        email=user.email,
        short_ids=short_ids,
        delete_from_panel=delete_from_panel,
        reason=reason,
        deleted_by=actor,
    )
    try:
        await users.delete_user(app, session, user)
    except IntegrityError as exc:
        raise UserInUse(str(exc.orig)) from exc
    events(app).publish(session, USER_DELETED, payload)


async def disable_subscriptions(
    app: Starlette, session: AsyncSession, rows: list[Subscription]
) -> list[Subscription]:
    """Soft-disable the subscriptions that are not disabled yet; returns those it changed."""
    changed = []
    for subscription in rows:
        if subscription.status != "disabled":
            await subscriptions.disable(session, events(app), subscription)
            changed.append(subscription)
    return changed


async def remove_subscriptions(
    app: Starlette, session: AsyncSession, rows: list[Subscription], *, deactivate: bool
) -> int:
    """Delete subscriptions (their traffic purchases go with them). With ``deactivate`` each is
    first disabled, which publishes the ``subscription.changed`` the panel integration acts on."""
    if deactivate:
        await disable_subscriptions(app, session, rows)
    return await subscriptions.remove(session, rows)

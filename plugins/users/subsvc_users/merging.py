"""Account merge, the users table's part (``cabinet_account_merging``, run last): the removed
user's invitees, messenger id, e-mail (with its password) and flags go to the kept user, any
balance left on the removed user (billing moves it, with transactions, when it runs) is added
to the kept user's, and the removed user is marked ``deleted`` with its unique fields cleared."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl
from subsvc_users.counts import count_cache
from subsvc_users.models import User
from subsvc_users.schemas import UserStatus


def retire(user: User) -> None:
    """Mark ``user`` deleted and clear what is unique or names another user."""
    user.status = UserStatus.DELETED
    user.messenger_id = None
    user.email = None
    user.email_verified = False
    user.email_verified_at = None
    user.email_verification_source = None
    user.password_hash = None
    user.referral_code = None
    user.referred_by_id = None
    user.updated_at = utcnow()


async def _move_unique_fields(session: AsyncSession, kept: User, removed: User) -> None:
    """The messenger id and the e-mail (with its password and verification) go to a kept user
    that has none; each is cleared on the removed user and flushed before it is set again."""
    messenger_id = removed.messenger_id if kept.messenger_id is None else None
    email = None
    if not kept.email and removed.email:
        email = (
            removed.email,
            removed.email_verified,
            removed.email_verified_at,
            removed.email_verification_source,
            removed.password_hash,
        )
    retire(removed)
    await session.flush()
    if messenger_id is not None:
        kept.messenger_id = messenger_id
    if email is not None:
        (
            kept.email,
            kept.email_verified,
            kept.email_verified_at,
            kept.email_verification_source,
            kept.password_hash,
        ) = email


async def _move_referrals(session: AsyncSession, kept: User, removed_id: int, inviter: int | None) -> None:
    """The removed user's invitees become the kept user's; the kept user keeps its own inviter,
    or takes the removed user's, and is never its own."""
    assert kept.id is not None
    await session.exec(
        update(User)
        .where(col(User.referred_by_id) == removed_id, col(User.id) != kept.id)
        .values(referred_by_id=kept.id)
        .execution_options(synchronize_session=False)
    )
    if kept.referred_by_id == removed_id:
        kept.referred_by_id = None
    if kept.referred_by_id is None and inviter not in (None, kept.id, removed_id):
        kept.referred_by_id = inviter


async def _move_balance(session: AsyncSession, kept_id: int, removed_id: int) -> int:
    """Whatever balance the removed user still has, added to the kept user's in relative
    updates; how much."""
    query = select(col(User.balance_kopeks)).where(col(User.id) == removed_id)
    left = (await session.exec(query)).one()
    if left:
        for user_id, delta in ((removed_id, -left), (kept_id, left)):
            await session.exec(
                update(User)
                .where(col(User.id) == user_id)
                .values(balance_kopeks=col(User.balance_kopeks) + delta)
                .execution_options(synchronize_session=False)
            )
    return left


@hookimpl(optionalhook=True, trylast=True)
async def cabinet_account_merging(
    app: Starlette, session: AsyncSession, kept_user_id: int, removed_user_id: int
) -> dict[str, Any] | None:
    """The users table's part of an account merge (see the module's text)."""
    left = await _move_balance(session, kept_user_id, removed_user_id)
    kept = await session.get(User, kept_user_id, populate_existing=True)
    removed = await session.get(User, removed_user_id, populate_existing=True)
    assert kept is not None and removed is not None
    kept.has_had_paid_subscription = kept.has_had_paid_subscription or removed.has_had_paid_subscription
    kept.has_made_first_topup = kept.has_made_first_topup or removed.has_made_first_topup
    inviter = removed.referred_by_id
    await _move_unique_fields(session, kept, removed)
    await _move_referrals(session, kept, removed_user_id, inviter)
    kept.updated_at = utcnow()
    await session.flush()
    count_cache(app).invalidate_on_commit(session)
    return {"moved_balance_kopeks": left} if left else None

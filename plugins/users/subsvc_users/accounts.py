"""A user's cabinet identity: the columns the cabinet login plugins own conceptually, written
only here, one rule per function.

``auth_type``, ``email`` with its verification and ``password_hash`` belong to the cabinet
sign-ups (cabinet_email, cabinet_oauth); ``cabinet_last_login`` to cabinet_auth's sessions;
a messenger id linked after sign-up to cabinet_oauth. The functions change the row in the
caller's session (added to it, so a detached row works too) and leave the flush to the caller,
who decides what a unique address or messenger id taken meanwhile means. Addresses are
stored as given: callers normalise them (:func:`subsvc.auth.admins.normalise_email`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc_users.counts import count_cache
from subsvc_users.models import User
from subsvc_users.schemas import UserCreateRequest
from subsvc_users.service import create_user


async def create_cabinet_user(
    app: Starlette,
    session: AsyncSession,
    data: UserCreateRequest,
    *,
    auth_type: str,
    password_hash: str | None = None,
    email: str | None = None,
    email_verified_by: str | None = None,
) -> User:
    """A user signing up in the cabinet: :func:`~subsvc_users.service.create_user`'s rules
    (default promo group, fresh referral code, uniqueness as :class:`UserRuleError`, the
    ``user.created`` event), then the identity it came with: how it logs in, its password
    hash, its address and the source that verified it (``None``: not verified). The new row's
    ``updated_at`` stays its creation time."""
    user = await create_user(app, session, data)
    user.auth_type = auth_type
    if password_hash is not None:
        user.password_hash = password_hash
    if email is not None:
        user.email = email
        if email_verified_by is not None:
            user.email_verified = True
            user.email_verified_at = utcnow()
            user.email_verification_source = email_verified_by
    session.add(user)
    return user


def verify_email(session: AsyncSession, user: User, email: str, source: str) -> None:
    """The user proved ``email`` (``source`` says how: ``cabinet``, ``oauth_google``, ...):
    it becomes the user's verified address; ``updated_at`` moves."""
    now = utcnow()
    user.email = email
    user.email_verified = True
    user.email_verified_at = now
    user.email_verification_source = source
    user.updated_at = now
    session.add(user)


def set_password_hash(session: AsyncSession, user: User, password_hash: str) -> None:
    """A new cabinet password (its hash; the e-mail plugin hashes); ``updated_at`` moves."""
    user.password_hash = password_hash
    user.updated_at = utcnow()
    session.add(user)


def record_cabinet_login(session: AsyncSession, user: User, at: datetime) -> None:
    """A cabinet session was issued at ``at``. A login is not a change of the user:
    ``updated_at`` stays."""
    user.cabinet_last_login = at
    session.add(user)


def link_messenger_id(
    app: Starlette,
    session: AsyncSession,
    user: User,
    messenger_id: int,
    *,
    username: str | None,
    first_name: str | None,
    last_name: str | None,
) -> None:
    """A user without a messenger id proved ``messenger_id``: it gets it, and the names it
    lacks from that account; ``updated_at`` moves. Both are searched by the users list, so
    this process's kept totals are dropped on commit."""
    user.messenger_id = messenger_id
    user.username = user.username or username
    user.first_name = user.first_name or first_name
    user.last_name = user.last_name or last_name
    user.updated_at = utcnow()
    session.add(user)
    count_cache(app).invalidate_on_commit(session)


async def touch(session: AsyncSession, user_id: int) -> None:
    """Move the user's ``updated_at`` to now in one UPDATE, read nothing. The statement takes
    the row's lock on PostgreSQL (the write lock on SQLite) until the transaction ends: a
    check-then-change of the user's logins that starts with it runs alone."""
    statement = update(User).where(col(User.id) == user_id).values(updated_at=utcnow())
    await session.exec(statement)

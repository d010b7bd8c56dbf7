"""The account a contact names: found, or made for an e-mail with a one-time password."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher
from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User, UserCreateRequest, create_cabinet_user

from subsvc.auth.admins import normalise_email

EMAIL, MESSENGER = "email", "messenger"
EMAIL_AUTH = "email"
UNKNOWN_MESSENGER_USER = "Messenger user not found: open the bot first or use an e-mail"
INVALID_EMAIL = "Invalid email format"


class ContactRefused(Exception):
    """A contact no account can be found or made for (answered 400 with this text)."""


@dataclass(frozen=True)
class Account:
    """A contact's user, and the one-time password when it was made here."""

    user: User
    password: str | None = None


def _email(value: str) -> str:
    email = normalise_email(value)
    local, _, domain = email.partition("@")
    if not local or "." not in domain or " " in email:
        raise ContactRefused(INVALID_EMAIL)
    return email


async def find_account(session: AsyncSession, contact_type: str, value: str) -> User | None:
    """The user an e-mail or a messenger username (``@`` optional) names."""
    if contact_type == EMAIL:
        query = select(User).where(col(User.email) == _email(value))
    else:
        query = select(User).where(func.lower(col(User.username)) == value.lstrip("@").lower())
    return (await session.exec(query.order_by(col(User.id)))).first()


async def account_for(app: Starlette, session: AsyncSession, contact_type: str, value: str) -> Account:
    """The contact's account; an unknown e-mail gets a new cabinet account with a generated
    password (returned once); an unknown messenger username is refused."""
    found = await find_account(session, contact_type, value)
    if found is not None:
        return Account(found)
    if contact_type != EMAIL:
        raise ContactRefused(UNKNOWN_MESSENGER_USER)
    password = secrets.token_urlsafe(9)
    password_hash = await asyncio.to_thread(PasswordHasher().hash, password)
    user = await create_cabinet_user(
        app,
        session,
        UserCreateRequest(),
        auth_type=EMAIL_AUTH,
        email=_email(value),
        password_hash=password_hash,
    )
    return Account(user, password)

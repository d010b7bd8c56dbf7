"""The account a contact names: checked when a purchase is made, found or made (an e-mail,
with a one-time password) only once it is paid; and the one account guest payments are
opened for."""

from __future__ import annotations

import asyncio
import re
import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher
from sqlalchemy import func
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User, UserCreateRequest, create_cabinet_user, create_user

from subsvc.auth.admins import normalise_email
from subsvc_landings.models import PaymentAccount

EMAIL, MESSENGER = "email", "messenger"
EMAIL_AUTH = "email"
UNKNOWN_MESSENGER_USER = "Messenger user not found: open the bot first or use an e-mail"
INVALID_EMAIL = "Invalid email format"
INVALID_USERNAME = "Invalid Messenger username format"
USERNAME = re.compile(r"^@?[a-zA-Z][a-zA-Z0-9_]{4,31}$")
PAYMENT_ACCOUNT_NAME = "Guest purchases (landings)"


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


async def check_contact(session: AsyncSession, contact_type: str, value: str) -> None:
    """Refuse a contact no account could be found or made for once paid: a malformed e-mail, an
    unknown messenger username. Makes nothing."""
    if contact_type == EMAIL:
        _email(value)
    elif await find_account(session, contact_type, value) is None:
        raise ContactRefused(UNKNOWN_MESSENGER_USER)


def check_recipient(contact_type: str, value: str) -> None:
    """Refuse a gift recipient's malformed e-mail or messenger username."""
    if contact_type == EMAIL:
        _email(value)
    elif not USERNAME.match(value):
        raise ContactRefused(INVALID_USERNAME)


async def payment_account(app: Starlette, session: AsyncSession) -> int:
    """The id of the account guest payments are opened for and credit (made at the first
    purchase, with no way to sign in): a purchase's price is debited from it once paid, so no
    buyer's account exists before its payment. Concurrent first purchases make one."""
    row = await session.get(PaymentAccount, 1)
    if row is not None and row.user_id is not None:
        return row.user_id
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    await session.exec(dialect.insert(PaymentAccount).values(id=1).on_conflict_do_nothing())
    query = select(PaymentAccount).where(col(PaymentAccount.id) == 1).with_for_update()
    row = (await session.exec(query.execution_options(populate_existing=True))).one()
    if row.user_id is None:
        user = await create_user(app, session, UserCreateRequest(first_name=PAYMENT_ACCOUNT_NAME))
        row.user_id = user.id
        session.add(row)
        await session.flush()
    assert row.user_id is not None
    return row.user_id


async def account_for(app: Starlette, session: AsyncSession, contact_type: str, value: str) -> Account:
    """The contact's account; an unknown e-mail gets a new cabinet account with a generated
    password (returned once); an unknown messenger username is refused. Two purchases paid at
    once for one new e-mail make one account: the second insert fails (in a savepoint) and finds
    the first's."""
    found = await find_account(session, contact_type, value)
    if found is not None:
        return Account(found)
    if contact_type != EMAIL:
        raise ContactRefused(UNKNOWN_MESSENGER_USER)
    password = secrets.token_urlsafe(9)
    password_hash = await asyncio.to_thread(PasswordHasher().hash, password)
    try:
        async with session.begin_nested():
            user = await create_cabinet_user(
                app, session, UserCreateRequest(), auth_type=EMAIL_AUTH, email=_email(value),
                password_hash=password_hash,
            )  # fmt: skip
            await session.flush()
    except IntegrityError:
        found = await find_account(session, contact_type, value)
        if found is None:
            raise
        return Account(found)
    return Account(user, password)

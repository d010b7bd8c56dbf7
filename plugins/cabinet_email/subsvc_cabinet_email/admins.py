"""The first administrator for an operator with shell access (``subsvc admin create``): an
``ADMIN_EMAILS`` address gets an account with a password and its address verified
(``admin_override``), so it can log in by e-mail without the messenger."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.auth.admins import is_admin
from subsvc.services import services
from subsvc_cabinet_email import accounts
from subsvc_cabinet_email.passwords import Passwords

VERIFIED_BY_OPERATOR = "admin_override"  # a trusted source: the operator vouches for the address
MIN_PASSWORD = 8
MAX_PASSWORD = 128


class AdminRefused(Exception):
    """The address or the password cannot make an administrator (the text says why)."""


@dataclass(frozen=True)
class AdminAccount:
    user_id: int
    email: str
    created: bool


def check_password(password: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AdminRefused(f"the password must have {MIN_PASSWORD} to {MAX_PASSWORD} characters")


async def create_admin(app: Starlette, session: AsyncSession, email: str, password: str) -> AdminAccount:
    """Give the ``ADMIN_EMAILS`` address ``email`` an account that logs in with ``password``:
    a new e-mail account, or the existing account of that address (its password replaced, its
    address verified). Flushed, not committed."""
    address = accounts.normalise(email)
    if not is_admin(services(app).settings, email=address):
        raise AdminRefused(f"{address} is not in ADMIN_EMAILS: add it there first")
    check_password(password)
    passwords: Passwords = app.state.cabinet_email_passwords
    password_hash = await passwords.hash(password)
    user: User | None = await accounts.user_by_email(session, address)
    if user is None:
        user = await accounts.create_account(
            app,
            session,
            email=address,
            password_hash=password_hash,
            first_name=None,
            language=None,
            referral_code=None,
            source=VERIFIED_BY_OPERATOR,
        )
        created = True
    else:
        if user.status != "active":
            raise AdminRefused(f"the account of {address} is {user.status}")
        await accounts.link_verified_address(
            session, user, address, VERIFIED_BY_OPERATOR, password_hash=password_hash
        )
        created = False
    assert user.id is not None
    return AdminAccount(user_id=user.id, email=address, created=created)

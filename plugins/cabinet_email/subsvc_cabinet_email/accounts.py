"""The rules of e-mail identities (no HTTP here): who owns an address, which addresses may be
taken, and what verifying, resetting and changing do to the user row (written through the
users plugin's rules: ``create_cabinet_user``, ``verify_email``, ``set_password_hash``).

Addresses are stored normalised (:func:`subsvc.auth.admins.normalise_email`: NFKC, trimmed,
lower case) and compared in that form, so matching is case-insensitive and the unique
``users.email`` index serves every lookup.
"""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User, UserCreateRequest, create_cabinet_user, set_password_hash, verify_email

from subsvc.api.refusal import Refusal
from subsvc.auth.admins import normalise_email
from subsvc_cabinet_email.models import EmailToken
from subsvc_cabinet_email.settings import CabinetEmailSettings

EMAIL_AUTH = "email"
VERIFIED_BY_MAIL = "cabinet"  # the address received our link or code: a trusted source
VERIFIED_WITHOUT_MAIL = "cabinet_auto"  # verification is switched off: not proof of ownership

ALREADY_REGISTERED = "This email is already registered"
DISPOSABLE = "Disposable email addresses are not allowed"


class EmailRuleError(Refusal):
    """A request the rules refuse: ``status`` and ``detail`` of the answer."""


def normalise(email: str) -> str:
    return normalise_email(email)


def is_disposable(settings: CabinetEmailSettings, email: str) -> bool:
    """Is the address's domain (or a parent of it) in ``CABINET_EMAIL_DISPOSABLE_DOMAINS``?"""
    domain = email.rpartition("@")[2].lower()
    parts = domain.split(".")
    candidates = {".".join(parts[i:]) for i in range(len(parts) - 1)}
    return not candidates.isdisjoint(settings.CABINET_EMAIL_DISPOSABLE_DOMAINS)


def check_new_address(app: Starlette, email: str) -> None:
    """Refuse an address nobody may claim through the cabinet: a disposable one (400).

    An ``ADMIN_EMAILS`` address is claimed like any other: it makes an administrator only once
    verified by a mailed link or code (``cabinet``), never while unverified or when
    verification is off (``cabinet_auto``)."""
    settings: CabinetEmailSettings = CabinetEmailSettings.of(app)
    if is_disposable(settings, email):
        raise EmailRuleError(400, DISPOSABLE)


async def user_by_email(session: AsyncSession, email: str) -> User | None:
    """The user whose (normalised) address is ``email``."""
    return (await session.exec(select(User).where(col(User.email) == normalise(email)))).first()


async def owner_other_than(session: AsyncSession, email: str, user_id: int | None) -> User | None:
    """The user, other than ``user_id``, who holds ``email``."""
    owner = await user_by_email(session, email)
    return owner if owner is not None and owner.id != user_id else None


async def _referrer_id(session: AsyncSession, code: str | None) -> int | None:
    if not code:
        return None
    query = select(col(User.id)).where(col(User.referral_code) == code, col(User.status) == "active")
    return (await session.exec(query)).first()


async def save(session: AsyncSession, user: User) -> None:
    """Write the user's changes; the unique address taken meanwhile is 400, not a 500."""
    try:
        await session.flush()
    except IntegrityError as exc:
        if "email" in str(exc.orig).lower():
            raise EmailRuleError(400, ALREADY_REGISTERED) from exc
        raise


async def create_account(
    app: Starlette,
    session: AsyncSession,
    *,
    email: str,
    password_hash: str,
    first_name: str | None,
    language: str | None,
    referral_code: str | None,
    source: str,
) -> User:
    """A new e-mail account (the users plugin's ``create_cabinet_user``), its address
    verified by ``source``. An unknown or inactive referral code is ignored."""
    if await user_by_email(session, email) is not None:
        raise EmailRuleError(400, ALREADY_REGISTERED)
    data = UserCreateRequest(
        first_name=first_name,
        language=language or "ru",
        referred_by_id=await _referrer_id(session, referral_code),
    )
    user = await create_cabinet_user(app, session, data, auth_type=EMAIL_AUTH, password_hash=password_hash)
    verify_email(session, user, email, source)
    await save(session, user)
    return user


async def link_verified_address(
    session: AsyncSession, user: User, email: str, source: str, *, password_hash: str | None = None
) -> None:
    """Give ``user`` the address ``email``, verified by ``source``, and the password that came
    with it (if any); written at once (the address taken meanwhile is 400)."""
    if password_hash is not None:
        set_password_hash(session, user, password_hash)
    verify_email(session, user, email, source)
    await save(session, user)


async def apply_verification(session: AsyncSession, user: User, row: EmailToken, source: str) -> None:
    """Give ``user`` the address ``row`` proved (and the password it carried, if any)."""
    if await owner_other_than(session, row.email, user.id) is not None:
        raise EmailRuleError(400, ALREADY_REGISTERED)
    await link_verified_address(session, user, row.email, source, password_hash=row.password_hash)


async def set_password(session: AsyncSession, user: User, password_hash: str) -> None:
    set_password_hash(session, user, password_hash)
    await session.flush()

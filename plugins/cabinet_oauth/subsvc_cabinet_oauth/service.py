"""The rules of external identities: logging in with one, linking and unlinking, and the
ways a user can log in. No HTTP in here; refusals are :class:`~.errors.FlowError`.

Login with a provider account: its identity row names the user; else a *verified* provider
e-mail that a local user has verified links the account to that user (an unverified local
e-mail is refused with ``email_unverified_local``); else a new user is made. Linking adds an
identity to the logged-in user; when the identity already belongs to another user the answer
is a merge token (see :mod:`.merge`). The user row is written through the users plugin's rules
(``create_cabinet_user``, ``update_user``, ``verify_email``, ``link_messenger_id``, ``touch``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_cabinet_auth.api import MessengerIdentity
from subsvc_users.api import (
    User,
    UserCreateRequest,
    UserStatus,
    UserUpdateRequest,
    create_cabinet_user,
    link_messenger_id,
    touch,
    update_user,
    verify_email,
)

from subsvc.auth.admins import normalise_email
from subsvc.db import utcnow
from subsvc_cabinet_oauth import errors, tokens
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.models import OAuthIdentity
from subsvc_cabinet_oauth.providers import SPECS, Profile
from subsvc_cabinet_oauth.settings import PROVIDERS

MESSENGER = "messenger"
EMAIL = "email"
TEXT_MAX = 255


def _clip(value: str | None) -> str | None:
    return value[:TEXT_MAX] if value else None


# --- reading -------------------------------------------------------------------------------------


async def find_identity(session: AsyncSession, provider: str, subject: str) -> OAuthIdentity | None:
    query = select(OAuthIdentity).where(
        col(OAuthIdentity.provider) == provider, col(OAuthIdentity.subject) == subject
    )
    return (await session.exec(query)).first()


async def identities_of(session: AsyncSession, user_id: int) -> dict[str, OAuthIdentity]:
    """A user's identities by provider."""
    query = select(OAuthIdentity).where(col(OAuthIdentity.user_id) == user_id)
    return {identity.provider: identity for identity in (await session.exec(query)).all()}


async def auth_methods(session: AsyncSession, user: User) -> list[str]:
    """The ways the user can log in: ``messenger``, ``email`` (an e-mail with a password) and
    each linked provider, in that order."""
    assert user.id is not None
    methods = []
    if user.messenger_id is not None:
        methods.append(MESSENGER)
    if user.email and user.password_hash:
        methods.append(EMAIL)
    linked = await identities_of(session, user.id)
    methods += [name for name in PROVIDERS if name in linked]
    return methods


async def user_by_email(session: AsyncSession, email: str) -> User | None:
    """The user with this e-mail. E-mails are stored normalised (NFKC, trimmed, lower case:
    :func:`subsvc.auth.admins.normalise_email`) by every plugin that writes them, so this is
    one probe of the unique index."""
    query = select(User).where(col(User.email) == normalise_email(email))
    return (await session.exec(query)).first()


# --- logging in ------------------------------------------------------------------------------------


async def _check_active(app: Starlette, session: AsyncSession, user: User) -> None:
    """Deleted users come back (as at the other logins); blocked ones are refused."""
    if user.status == UserStatus.DELETED:
        await update_user(app, session, user, UserUpdateRequest(status=UserStatus.ACTIVE.value))
    elif user.status != UserStatus.ACTIVE:
        raise FlowError(403, errors.USER_INACTIVE)


def _identity(user_id: int, profile: Profile) -> OAuthIdentity:
    now = utcnow()
    return OAuthIdentity(
        user_id=user_id,
        provider=profile.provider,
        subject=profile.subject,
        email=_clip(profile.email),
        email_verified=profile.email_verified,
        username=_clip(profile.username),
        display_name=_clip(profile.display_name),
        created_at=now,
        last_login_at=now,
    )


def _refresh(identity: OAuthIdentity, profile: Profile) -> None:
    identity.email = _clip(profile.email)
    identity.email_verified = profile.email_verified
    identity.username = _clip(profile.username)
    identity.display_name = _clip(profile.display_name)
    identity.last_login_at = utcnow()


async def _referrer_id(session: AsyncSession, referral_code: str | None) -> int | None:
    if not referral_code:
        return None
    query = select(col(User.id)).where(col(User.referral_code) == referral_code)
    return (await session.exec(query)).first()


async def _new_user(
    app: Starlette, session: AsyncSession, profile: Profile, referral_code: str | None
) -> User:
    """A user made from a provider profile; its e-mail is taken only while nobody has it."""
    data = UserCreateRequest(
        username=_clip(profile.username),
        first_name=_clip(profile.first_name),
        last_name=_clip(profile.last_name),
        referred_by_id=await _referrer_id(session, referral_code),
    )
    email = None
    if profile.email and await user_by_email(session, profile.email) is None:
        email = normalise_email(profile.email)[:TEXT_MAX]
    verified_by = _source(profile.provider) if email and profile.email_verified else None
    return await create_cabinet_user(
        app, session, data, auth_type=profile.provider, email=email, email_verified_by=verified_by
    )


def _source(provider: str) -> str:
    """The verification source of an address a provider vouches for."""
    return f"oauth_{provider}"


async def login(
    app: Starlette, session: AsyncSession, profile: Profile, *, referral_code: str | None = None
) -> User:
    """The user a provider account logs in as, linking or creating as the rules say. The
    changes are flushed: a concurrent login of the same new account raises ``IntegrityError``
    (the caller rolls back and tries again, and then finds the identity)."""
    identity = await find_identity(session, profile.provider, profile.subject)
    if identity is not None:
        user = await session.get(User, identity.user_id)
        assert user is not None  # the foreign key cascades
        await _check_active(app, session, user)
        _refresh(identity, profile)
        await session.flush()
        return user
    if profile.email and profile.email_verified:
        local = await user_by_email(session, profile.email)
        if local is not None:
            assert local.id is not None
            if not local.email_verified:
                raise errors.email_unverified_local()
            await _check_active(app, session, local)
            if profile.provider in await identities_of(session, local.id):
                raise FlowError(409, errors.email_owner_has_provider(SPECS[profile.provider].display_name))
            session.add(_identity(local.id, profile))
            await session.flush()
            return local
    user = await _new_user(app, session, profile, referral_code)
    assert user.id is not None
    session.add(_identity(user.id, profile))
    await session.flush()
    return user


# --- linking ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkOutcome:
    """``linked`` / ``already_linked``, or ``merge_required`` with the merge token."""

    message: str
    merge_token: str | None = None

    @property
    def success(self) -> bool:
        return self.merge_token is None


async def link(session: AsyncSession, user: User, profile: Profile, *, merge_ttl_seconds: int) -> LinkOutcome:
    """Link a provider account to ``user`` (flushed; ``IntegrityError`` when a concurrent
    request linked it first)."""
    assert user.id is not None
    display = SPECS[profile.provider].display_name
    mine = (await identities_of(session, user.id)).get(profile.provider)
    if mine is not None:
        if mine.subject == profile.subject:
            return LinkOutcome("already_linked")
        raise FlowError(409, errors.slot_taken(display))
    existing = await find_identity(session, profile.provider, profile.subject)
    if existing is not None:
        token = await tokens.create_merge_token(
            session,
            primary_user_id=user.id,
            secondary_user_id=existing.user_id,
            provider=profile.provider,
            subject=profile.subject,
            ttl_seconds=merge_ttl_seconds,
        )
        return LinkOutcome("merge_required", token)
    email_is_free = not user.email and profile.email and profile.email_verified
    if email_is_free and await user_by_email(session, profile.email or "") is None:
        verify_email(
            session, user, normalise_email(profile.email or "")[:TEXT_MAX], _source(profile.provider)
        )
    session.add(_identity(user.id, profile))
    await session.flush()
    return LinkOutcome("linked")


async def link_messenger(
    app: Starlette,
    session: AsyncSession,
    user: User,
    identity: MessengerIdentity,
    merge_ttl_seconds: int,
) -> LinkOutcome:
    """Give ``user`` the verified messenger account's id (and names it lacks); a merge token
    when another user has that messenger id."""
    assert user.id is not None
    messenger_id = identity.messenger_id
    if user.messenger_id is not None:
        if user.messenger_id == messenger_id:
            return LinkOutcome("already_linked")
        raise FlowError(400, errors.MESSENGER_ALREADY_LINKED)
    owner = (await session.exec(select(col(User.id)).where(col(User.messenger_id) == messenger_id))).first()
    if owner is not None:
        token = await tokens.create_merge_token(
            session,
            primary_user_id=user.id,
            secondary_user_id=owner,
            provider=MESSENGER,
            subject=str(messenger_id),
            ttl_seconds=merge_ttl_seconds,
        )
        return LinkOutcome("merge_required", token)
    names = {
        "username": _clip(identity.username),
        "first_name": _clip(identity.first_name),
        "last_name": _clip(identity.last_name),
    }
    link_messenger_id(app, session, user, messenger_id, **names)
    await session.flush()
    return LinkOutcome("linked")


async def unlink(session: AsyncSession, user: User, provider: str) -> None:
    """Remove a provider from ``user``, never the last way to log in.

    The first statement writes the user row: it takes the row lock on PostgreSQL (and the
    write lock on SQLite), so two concurrent unlinks of one user run one after the other
    and cannot together remove every method."""
    assert user.id is not None
    await touch(session, user.id)
    await session.refresh(user)
    methods = await auth_methods(session, user)
    if provider not in methods:
        raise FlowError(400, errors.NOT_LINKED)
    if len(methods) <= 1:
        raise FlowError(400, errors.LAST_METHOD)
    await session.exec(
        delete(OAuthIdentity).where(
            col(OAuthIdentity.user_id) == user.id, col(OAuthIdentity.provider) == provider
        )
    )

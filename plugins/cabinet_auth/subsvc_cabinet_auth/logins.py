"""Logging a messenger identity in: find the user by messenger id or create it (with the legal
consent and first campaign a new account brings), refresh its profile, apply the status rules,
then :func:`~subsvc_cabinet_auth.sessions.issue_session`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import (
    User,
    UserCreateRequest,
    UserRuleError,
    UserUpdateRequest,
    create_user,
    update_user,
)

from subsvc.api.errors import HTTPError
from subsvc.services import services
from subsvc_cabinet_auth.campaigns import record_first_campaign
from subsvc_cabinet_auth.consent import record_consent, require_legal_consent
from subsvc_cabinet_auth.guard import NOT_ACTIVE
from subsvc_cabinet_auth.messenger import MessengerIdentity
from subsvc_cabinet_auth.schemas import AuthResponse
from subsvc_cabinet_auth.sessions import issue_session

NAME_LIMIT = 255


async def user_by_messenger_id(session: AsyncSession, messenger_id: int) -> User | None:
    return (await session.exec(select(User).where(col(User.messenger_id) == messenger_id))).first()


async def referrer_id(session: AsyncSession, code: str | None, messenger_id: int) -> int | None:
    """The id of the user whose referral code this is (never the newcomer themselves)."""
    if not code:
        return None
    referrer = (await session.exec(select(User).where(col(User.referral_code) == code))).first()
    if referrer is None or referrer.messenger_id == messenger_id:
        return None
    return referrer.id


def _clip(value: str | None) -> str | None:
    return value[:NAME_LIMIT] if value else None


def _language(value: str | None) -> str:
    value = (value or "").strip()
    return value if 2 <= len(value) <= 10 else "ru"


@dataclass(frozen=True)
class Arrival:
    """What a login brings for an account it makes: the method (``messenger``, ``widget``,
    ``oidc``), the inviter's code, the campaign and the accepted legal documents."""

    source: str
    referral_code: str | None = None
    campaign_slug: str | None = None
    accepted_legal_documents: Sequence[str] | None = None


async def find_or_create(
    request: Request, session: AsyncSession, identity: MessengerIdentity, arrival: Arrival
) -> User:
    """The user with this messenger id, created (with the referrer of the referral code, the
    legal consent required of a new account, and the first campaign) when there is none. A
    concurrent first login of the same person finds the winner's row."""
    user = await user_by_messenger_id(session, identity.messenger_id)
    if user is not None:
        return user
    language = _language(identity.language)
    await require_legal_consent(request, session, language, arrival.accepted_legal_documents)
    data = UserCreateRequest(
        messenger_id=identity.messenger_id,
        username=_clip(identity.username),
        first_name=_clip(identity.first_name),
        last_name=_clip(identity.last_name),
        language=language,
        referred_by_id=await referrer_id(session, arrival.referral_code, identity.messenger_id),
    )
    try:
        async with session.begin_nested():
            user = await create_user(request.app, session, data)
    except UserRuleError:
        found = await user_by_messenger_id(session, identity.messenger_id)
        if found is None:
            raise
        return found
    assert user.id is not None
    await record_consent(
        request, session, user.id, arrival.accepted_legal_documents, language=language, source=arrival.source
    )
    await record_first_campaign(
        session, user.id, arrival.campaign_slug, arrival.source, events=services(request.app).events
    )
    return user


async def messenger_login(
    request: Request,
    session: AsyncSession,
    identity: MessengerIdentity,
    arrival: Arrival,
    *,
    revive_deleted: bool = False,
    update_last_name: bool = True,
    device_info: str | None = None,
) -> AuthResponse:
    """Log the identity in. A deleted account is revived when ``revive_deleted`` (signed
    init data is as good as a fresh start in the bot); otherwise a user who is not active
    gets 403 'User account is not active'."""
    user = await find_or_create(request, session, identity, arrival)
    changes = UserUpdateRequest()
    if user.status != "active":
        if not (revive_deleted and user.status == "deleted"):
            raise HTTPError(403, NOT_ACTIVE)
        changes.status = "active"
    if identity.username and identity.username != user.username:
        changes.username = _clip(identity.username)
    if identity.first_name and identity.first_name != user.first_name:
        changes.first_name = _clip(identity.first_name)
    if update_last_name and identity.last_name and identity.last_name != user.last_name:
        changes.last_name = _clip(identity.last_name)
    user = await update_user(request.app, session, user, changes)
    return await issue_session(request, session, user, device_info=device_info)

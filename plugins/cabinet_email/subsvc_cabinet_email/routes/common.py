"""What the e-mail endpoints share: the router, the caller's row, settings, limits, links."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import User

from subsvc.api import HTTPError, Router
from subsvc.auth.principal import Principal
from subsvc.ratelimit import TOO_MANY_REQUESTS, rate_limit, rate_limiter
from subsvc.services import services
from subsvc_cabinet_email import delivery, tokens
from subsvc_cabinet_email.models import CHANGE, MERGE, VERIFY, EmailToken
from subsvc_cabinet_email.passwords import Passwords
from subsvc_cabinet_email.settings import CabinetEmailSettings

TAG = "Cabinet Auth"
USER_NOT_FOUND = "User not found"
EXPIRED_CODE = "Verification code has expired"
INVALID_CODE = "Invalid verification code"
TOO_MANY_ATTEMPTS = "Too many invalid attempts. Please request a new code."
# what a 6-digit code's hash is bound to, by the purpose of its row (a change's code is no merge's)
CODE_PURPOSES = {CHANGE: "email-change", MERGE: "email-merge"}

# default limits per client IP (override with RATE_LIMITS=action=limit)
LIMITS = {
    "email_register": "5/minute",
    "email_verify": "10/minute",
    "email_resend": "3/minute",
    "email_login": "10/minute",
    "password_forgot": "3/minute",
    "password_reset": "5/minute",
    "email_change": "5 per 5 minutes",
    "email_change_verify": "5/minute",
    "email_merge_verify": "5/minute",
    "email_to_address": "5/hour",  # mail to one address, whoever asks (no mail bombing)
}


def new_router() -> Router:
    return Router(area="cabinet", tag=TAG, prefix="/cabinet/auth")


def settings(request: Request) -> CabinetEmailSettings:
    return CabinetEmailSettings.of(request.app)


def passwords(request: Request) -> Passwords:
    found: Passwords = request.app.state.cabinet_email_passwords
    return found


async def limit(request: Request, action: str) -> None:
    """Count a hit of ``action`` for the client IP (429 past its limit)."""
    await rate_limit(request, action, LIMITS[action])


async def address_allowed(request: Request, email: str) -> int | None:
    """Count one mail to ``email``; ``None`` when allowed, else the seconds to wait."""
    key = hashlib.sha256(email.encode()).hexdigest()
    action = "email_to_address"
    return await rate_limiter(request.app).hit(action, LIMITS[action], key)


async def limit_address(request: Request, email: str) -> None:
    """429 past the limit of mail to one address."""
    retry_after = await address_allowed(request, email)
    if retry_after is not None:
        raise HTTPError(429, TOO_MANY_REQUESTS, {"Retry-After": str(retry_after)})


async def current_user(session: AsyncSession, principal: Principal) -> User:
    """The caller's row (read for update: the handler may change it)."""
    user = await session.get(User, principal.id, with_for_update=True)
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    return user


async def redeem_link(
    session: AsyncSession, purpose: str, token: str, *, invalid: str, expired: str
) -> EmailToken:
    """The mailed link ``token`` of ``purpose``, used up now (its siblings go too); 400
    ``invalid`` when unknown or already used, 400 ``expired`` when past its lifetime."""
    row = await tokens.find(session, purpose, tokens.hash_link_token(token))
    if row is None:
        raise HTTPError(400, invalid)
    if tokens.is_expired(row):
        raise HTTPError(400, expired)
    if not await tokens.use(session, row):
        raise HTTPError(400, invalid)
    return row


def require_links(request: Request) -> None:
    """503 unless mail with links can be sent (SMTP and ``CABINET_URL`` set)."""
    if not settings(request).links_configured:
        raise HTTPError(503, delivery.NOT_CONFIGURED)


def require_smtp(request: Request) -> None:
    if not settings(request).smtp_configured:
        raise HTTPError(503, delivery.NOT_CONFIGURED)


def link(request: Request, page: str, token: str) -> str:
    base = (settings(request).CABINET_URL or "").rstrip("/")
    return f"{base}/{page}?token={token}"


def greeting_name(user_first_name: str | None, email: str) -> str:
    return user_first_name or email.partition("@")[0]


def verification_lifetime(request: Request) -> timedelta:
    return timedelta(hours=settings(request).CABINET_EMAIL_VERIFICATION_EXPIRE_HOURS)


async def mail_verification_link(
    request: Request,
    session: AsyncSession,
    *,
    email: str,
    name: str | None,
    mail_language: str | None,
    **fields: str | int | None,
) -> None:
    """Store a verification link for ``email`` (``fields``: its user or the new account's
    data), commit, mail it; 503 and nothing stored when the mail cannot leave."""
    await limit_address(request, email)
    token = tokens.new_link_token()
    row = await tokens.issue(
        session,
        VERIFY,
        tokens.hash_link_token(token),
        email=email,
        lifetime=verification_lifetime(request),
        **fields,
    )
    message = delivery.mailer(request.app).compose(
        "verification",
        mail_language,
        email,
        name=greeting_name(name, email),
        link=link(request, "verify-email", token),
        hours=str(settings(request).CABINET_EMAIL_VERIFICATION_EXPIRE_HOURS),
    )
    assert row.id is not None
    await delivery.commit_and_send(session, request.app, message, row.id)


async def mail_user_link(
    request: Request, session: AsyncSession, user: User, email: str, password_hash: str | None = None
) -> None:
    """:func:`mail_verification_link` for an account: ``email`` becomes ``user``'s (with
    ``password_hash``) once opened; the mail greets it by name, in its language."""
    await mail_verification_link(
        request,
        session,
        email=email,
        name=user.first_name,
        mail_language=user.language,
        user_id=user.id,
        password_hash=password_hash,
    )


def _code_secret(request: Request) -> str:
    secret: str = services(request.app).jwt.secret
    return secret


async def mail_code(
    request: Request,
    session: AsyncSession,
    purpose: str,
    *,
    user_id: int,
    email: str,
    template: str,
    mail_language: str | None,
    name: str,
) -> int:
    """Store a 6-digit code of ``purpose`` for ``user_id``, commit, mail it to ``email`` with
    ``template``; the code's lifetime in minutes. 429 past the limit of mail to ``email``."""
    await limit_address(request, email)
    minutes = settings(request).CABINET_EMAIL_CHANGE_CODE_EXPIRE_MINUTES
    code = tokens.new_code()
    row = await tokens.issue(
        session,
        purpose,
        tokens.hash_code(_code_secret(request), user_id, code, CODE_PURPOSES[purpose]),
        email=email,
        lifetime=timedelta(minutes=minutes),
        user_id=user_id,
    )
    message = delivery.mailer(request.app).compose(
        template, mail_language, email, name=name, code=code, minutes=str(minutes)
    )
    assert row.id is not None
    await delivery.commit_and_send(session, request.app, message, row.id)
    return minutes


async def redeem_code(
    request: Request, session: AsyncSession, purpose: str, user_id: int, code: str, *, no_pending: str
) -> EmailToken:
    """The user's pending code of ``purpose``, used up now when ``code`` matches it. 400
    ``no_pending`` without one, 400 when expired or wrong; after
    ``CABINET_EMAIL_CHANGE_MAX_ATTEMPTS`` wrong codes it is dropped (429)."""
    row = await tokens.newest_for_user(session, purpose, user_id)
    if row is None:
        raise HTTPError(400, no_pending)
    if tokens.is_expired(row):
        raise HTTPError(400, EXPIRED_CODE)
    if not tokens.codes_match(row.token_hash, _code_secret(request), user_id, code, CODE_PURPOSES[purpose]):
        row.attempts += 1
        if row.attempts >= settings(request).CABINET_EMAIL_CHANGE_MAX_ATTEMPTS:
            await tokens.discard(session, purpose, user_id=user_id)
            await session.commit()
            raise HTTPError(429, TOO_MANY_ATTEMPTS)
        session.add(row)
        await session.commit()
        raise HTTPError(400, INVALID_CODE)
    if not await tokens.use(session, row):
        raise HTTPError(400, no_pending)
    return row

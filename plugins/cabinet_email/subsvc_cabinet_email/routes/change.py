"""`POST /cabinet/auth/email/change`, `/email/change/verify`, `/email/change/cancel` and
`GET /email/change/status`."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_auth.api import MessageResponse

from subsvc.api import HTTPError
from subsvc.auth.principal import Principal
from subsvc.ratelimit import RATE_LIMITED
from subsvc.services import services
from subsvc_cabinet_email import accounts, delivery, tokens
from subsvc_cabinet_email.models import CHANGE, VERIFY
from subsvc_cabinet_email.routes.common import (
    current_user,
    greeting_name,
    limit,
    limit_address,
    mail_user_link,
    new_router,
    require_links,
    require_smtp,
    settings,
)
from subsvc_cabinet_email.schemas import (
    EmailChangeDone,
    EmailChangeRequest,
    EmailChangeResponse,
    EmailChangeStatus,
    EmailChangeVerifyRequest,
)

router = new_router()

NO_EMAIL = "No email address to change"
SAME_EMAIL = "New email is the same as current email"
NO_PENDING = "No pending email change"
EXPIRED_CODE = "Verification code has expired"
INVALID_CODE = "Invalid verification code"
TOO_MANY_ATTEMPTS = "Too many invalid attempts. Please request a new code."


def _secret(request: Request) -> str:
    secret: str = services(request.app).jwt.secret
    return secret


@router.post(
    "/email/change",
    responses={
        400: "No address yet, the same address, disposable, or registered to another account",
        503: "Email service is not configured, or the mail could not be sent",
        **RATE_LIMITED,
    },
)
async def request_email_change(
    request: Request, session: AsyncSession, principal: Principal, payload: EmailChangeRequest
) -> EmailChangeResponse:
    """Move the account to another address.

    A verified address changes only when the 6-digit code mailed to the new address comes
    back (`POST /email/change/verify`); a new request replaces the pending one. An unverified
    address is replaced by verifying the new one through a mailed link (`POST /email/verify`);
    with verification off it is replaced at once.
    """
    await limit(request, "email_change")
    user = await current_user(session, principal)
    assert user.id is not None
    if not user.email:
        raise HTTPError(400, NO_EMAIL)
    email = accounts.normalise(payload.new_email)
    if email == user.email:
        raise HTTPError(400, SAME_EMAIL)
    accounts.check_new_address(request.app, email)
    if await accounts.owner_other_than(session, email, user.id) is not None:
        raise HTTPError(400, accounts.ALREADY_REGISTERED)
    config = settings(request)
    if not user.email_verified:
        if not config.CABINET_EMAIL_VERIFICATION_ENABLED:
            await accounts.link_verified_address(session, user, email, accounts.VERIFIED_WITHOUT_MAIL)
            return EmailChangeResponse(message="Email changed", new_email=email, expires_in_minutes=0)
        require_links(request)
        await mail_user_link(request, session, user, email)
        hours = config.CABINET_EMAIL_VERIFICATION_EXPIRE_HOURS
        return EmailChangeResponse(
            message="Verification email sent to the new address",
            new_email=email,
            expires_in_minutes=hours * 60,
        )
    require_smtp(request)
    await limit_address(request, email)
    minutes = config.CABINET_EMAIL_CHANGE_CODE_EXPIRE_MINUTES
    code = tokens.new_code()
    row = await tokens.issue(
        session,
        CHANGE,
        tokens.hash_code(_secret(request), user.id, code),
        email=email,
        lifetime=timedelta(minutes=minutes),
        user_id=user.id,
    )
    message = delivery.mailer(request.app).compose(
        "email_change_code",
        user.language,
        email,
        name=greeting_name(user.first_name, user.email),
        code=code,
        minutes=str(minutes),
    )
    assert row.id is not None
    await delivery.commit_and_send(session, request.app, message, row.id)
    return EmailChangeResponse(
        message="Verification code sent to new email", new_email=email, expires_in_minutes=minutes
    )


@router.post(
    "/email/change/verify",
    responses={
        400: "No pending change, wrong or expired code, address taken meanwhile",
        429: "Too many requests, or too many wrong codes (the pending change is dropped)",
    },
)
async def verify_email_change(
    request: Request, session: AsyncSession, principal: Principal, payload: EmailChangeVerifyRequest
) -> EmailChangeDone:
    """Complete the pending change with the code mailed to the new address. After
    `CABINET_EMAIL_CHANGE_MAX_ATTEMPTS` wrong codes the change is dropped (429)."""
    await limit(request, "email_change_verify")
    user = await current_user(session, principal)
    assert user.id is not None
    row = await tokens.newest_for_user(session, CHANGE, user.id)
    if row is None:
        raise HTTPError(400, NO_PENDING)
    if tokens.is_expired(row):
        raise HTTPError(400, EXPIRED_CODE)
    if not tokens.codes_match(row.token_hash, _secret(request), user.id, payload.code):
        row.attempts += 1
        if row.attempts >= settings(request).CABINET_EMAIL_CHANGE_MAX_ATTEMPTS:
            await tokens.discard(session, CHANGE, user_id=user.id)
            await session.commit()
            raise HTTPError(429, TOO_MANY_ATTEMPTS)
        session.add(row)
        await session.commit()
        raise HTTPError(400, INVALID_CODE)
    if not await tokens.use(session, row):
        raise HTTPError(400, NO_PENDING)
    await accounts.apply_verification(session, user, row, accounts.VERIFIED_BY_MAIL)
    await tokens.discard(session, VERIFY, user_id=user.id)  # links to an earlier address
    return EmailChangeDone(message="Email changed successfully", new_email=row.email)


@router.post("/email/change/cancel", responses={400: "No pending email change"})
async def cancel_email_change(session: AsyncSession, principal: Principal) -> MessageResponse:
    """Drop the pending change (its code stops working)."""
    user = await current_user(session, principal)
    assert user.id is not None
    if await tokens.newest_for_user(session, CHANGE, user.id, live_only=True) is None:
        raise HTTPError(400, NO_PENDING)
    await tokens.discard(session, CHANGE, user_id=user.id)
    return MessageResponse(message="Email change cancelled")


@router.get("/email/change/status")
async def get_email_change_status(session: AsyncSession, principal: Principal) -> EmailChangeStatus:
    """The pending change, if any: the new address and when its code expires."""
    row = await tokens.newest_for_user(session, CHANGE, principal.id, live_only=True)
    if row is None:
        return EmailChangeStatus(pending=False)
    return EmailChangeStatus(pending=True, new_email=row.email, expires_at=row.expires_at)

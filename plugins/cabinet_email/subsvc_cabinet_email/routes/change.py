"""`POST /cabinet/auth/email/change`, `/email/change/verify`, `/email/change/cancel` and
`GET /email/change/status`."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_auth.api import MessageResponse

from subsvc.api import HTTPError
from subsvc.auth.principal import Principal
from subsvc.ratelimit import RATE_LIMITED
from subsvc_cabinet_email import accounts, tokens
from subsvc_cabinet_email.models import CHANGE, VERIFY
from subsvc_cabinet_email.routes.common import (
    current_user,
    greeting_name,
    limit,
    mail_code,
    mail_user_link,
    new_router,
    redeem_code,
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
    minutes = await mail_code(
        request,
        session,
        CHANGE,
        user_id=user.id,
        email=email,
        template="email_change_code",
        mail_language=user.language,
        name=greeting_name(user.first_name, user.email),
    )
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
    row = await redeem_code(request, session, CHANGE, user.id, payload.code, no_pending=NO_PENDING)
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

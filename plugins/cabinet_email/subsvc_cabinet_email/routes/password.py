"""`POST /cabinet/auth/email/login`, `/password/forgot` and `/password/reset`."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_auth.api import AuthResponse, MessageResponse, issue_session, revoke_all
from subsvc_users.api import User

from subsvc.api import HTTPError
from subsvc.ratelimit import RATE_LIMITED
from subsvc_cabinet_email import accounts, delivery, tokens
from subsvc_cabinet_email.models import RESET
from subsvc_cabinet_email.routes.common import (
    address_allowed,
    greeting_name,
    limit,
    link,
    new_router,
    passwords,
    redeem_link,
    require_links,
    settings,
)
from subsvc_cabinet_email.schemas import EmailLoginRequest, PasswordForgotRequest, PasswordResetRequest

router = new_router()

INVALID_CREDENTIALS = "Invalid email or password"
NO_PASSWORD = "Password login not configured for this account"  # noqa: S105 - a message
VERIFY_FIRST = "Please verify your email first"
RESET_SENT = "If the email exists, a password reset link has been sent"
INVALID_RESET = "Invalid reset token"
EXPIRED_RESET = "Reset token has expired"


async def _refuse_unknown(request: Request, session: AsyncSession, email: str, password: str) -> None:
    """No account has the address: 403 when it waits for verification with this very password,
    else 401 (after the same password work as a real check)."""
    checker = passwords(request)
    for pending in await tokens.pending_registrations(session, email):
        if await checker.verify(pending.password_hash, password):
            raise HTTPError(403, VERIFY_FIRST)
    await checker.verify(None, password)
    raise HTTPError(401, INVALID_CREDENTIALS)


@router.post(
    "/email/login",
    public=True,
    responses={
        401: "Invalid email or password, or no password on the account",
        403: "Address not verified yet",
        **RATE_LIMITED,
    },
)
async def login_email(request: Request, session: AsyncSession, payload: EmailLoginRequest) -> AuthResponse:
    """Log in with an e-mail (any case) and its password.

    Unknown address, wrong password and an account that is not active answer alike (401
    'Invalid email or password'). An address still waiting for its verification link is 403.
    """
    await limit(request, "email_login")
    checker = passwords(request)
    email = accounts.normalise(payload.email)
    user = await accounts.user_by_email(session, email)
    if user is None:
        await _refuse_unknown(request, session, email, payload.password)
        raise AssertionError("unreachable")
    if user.password_hash is None:
        raise HTTPError(401, NO_PASSWORD)
    if not await checker.verify(user.password_hash, payload.password):
        raise HTTPError(401, INVALID_CREDENTIALS)
    if user.status != "active":
        raise HTTPError(401, INVALID_CREDENTIALS)
    if not user.email_verified and settings(request).CABINET_EMAIL_VERIFICATION_ENABLED:
        raise HTTPError(403, VERIFY_FIRST)
    if checker.needs_rehash(user.password_hash):
        await accounts.set_password(session, user, await checker.hash(payload.password))
    return await issue_session(request, session, user, device_info="email")


@router.post(
    "/password/forgot", public=True, responses={503: "Email service is not configured", **RATE_LIMITED}
)
async def forgot_password(
    request: Request, session: AsyncSession, payload: PasswordForgotRequest
) -> MessageResponse:
    """Mail a password reset link to the address when an active account has it verified.

    The answer is the same whether or not it does; the mail leaves in the background, so the
    answer's timing does not tell either."""
    await limit(request, "password_forgot")
    require_links(request)
    user = await accounts.user_by_email(session, payload.email)
    if user is None or not user.email_verified or user.status != "active" or user.email is None:
        return MessageResponse(message=RESET_SENT)
    if await address_allowed(request, user.email) is not None:
        return MessageResponse(message=RESET_SENT)  # enough mail to that address for now
    token = tokens.new_link_token()
    hours = settings(request).CABINET_PASSWORD_RESET_EXPIRE_HOURS
    row = await tokens.issue(
        session,
        RESET,
        tokens.hash_link_token(token),
        email=user.email,
        lifetime=timedelta(hours=hours),
        user_id=user.id,
    )
    message = delivery.mailer(request.app).compose(
        "password_reset",
        user.language,
        user.email,
        name=greeting_name(user.first_name, user.email),
        link=link(request, "reset-password", token),
        hours=str(hours),
    )
    await session.commit()
    assert row.id is not None
    delivery.send_later(request.app, message, row.id)
    return MessageResponse(message=RESET_SENT)


@router.post(
    "/password/reset", public=True, responses={400: "Invalid, used or expired token", **RATE_LIMITED}
)
async def reset_password(
    request: Request, session: AsyncSession, payload: PasswordResetRequest
) -> MessageResponse:
    """Set a new password with a mailed reset link (once). Every session of the account is
    logged out, and the account's other reset links stop working."""
    await limit(request, "password_reset")
    row = await redeem_link(session, RESET, payload.token, invalid=INVALID_RESET, expired=EXPIRED_RESET)
    if row.user_id is None:
        raise HTTPError(400, INVALID_RESET)
    user = await session.get(User, row.user_id, with_for_update=True)
    if user is None or user.email != row.email:
        raise HTTPError(400, INVALID_RESET)
    await accounts.set_password(session, user, await passwords(request).hash(payload.password))
    await revoke_all(session, row.user_id)
    return MessageResponse(message="Password reset successfully")

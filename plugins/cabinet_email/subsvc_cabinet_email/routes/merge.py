"""Merging with the account that holds an address (`POST /cabinet/auth/email/register` found
it registered to another account): a 6-digit code mailed to that address proves inbox
control; `POST /cabinet/auth/email/merge/verify` takes it back and mints the merge token of
the OAuth plugin (`POST /cabinet/auth/merge/{token}` merges)."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_oauth.api import offer_merge
from subsvc_users.api import User

from subsvc.api import HTTPError
from subsvc.auth.principal import Principal
from subsvc.ratelimit import RATE_LIMITED
from subsvc.services import services
from subsvc_cabinet_email import accounts, delivery, tokens
from subsvc_cabinet_email.models import MERGE
from subsvc_cabinet_email.routes.common import (
    current_user,
    greeting_name,
    limit,
    limit_address,
    new_router,
    settings,
)
from subsvc_cabinet_email.schemas import EmailLinkResponse, EmailMergeVerifyRequest, EmailMergeVerifyResponse

router = new_router()

CODE_PURPOSE = "email-merge"
MERGE_CODE_SENT = "This email belongs to another account. A confirmation code was sent to it."
NO_PENDING = "No pending email merge"
EXPIRED_CODE = "Verification code has expired"
INVALID_CODE = "Invalid verification code"
TOO_MANY_ATTEMPTS = "Too many invalid attempts. Please request a new code."
ACCOUNT_GONE = "The account of this email no longer exists"


def merging_available(request: Request) -> bool:
    """Merges are done by the OAuth plugin: offered only while it runs."""
    return any(info.name == "cabinet_oauth" for info in services(request.app).plugins.enabled)


def _secret(request: Request) -> str:
    secret: str = services(request.app).jwt.secret
    return secret


async def mail_merge_code(
    request: Request, session: AsyncSession, user: User, owner: User, email: str
) -> EmailLinkResponse:
    """Mail a merge code to ``email`` (held by ``owner``) for ``user``; a new one replaces the
    pending one."""
    assert user.id is not None
    await limit_address(request, email)
    minutes = settings(request).CABINET_EMAIL_CHANGE_CODE_EXPIRE_MINUTES
    code = tokens.new_code()
    await tokens.discard(session, MERGE, user_id=user.id)
    row = await tokens.issue(
        session,
        MERGE,
        tokens.hash_code(_secret(request), user.id, code, CODE_PURPOSE),
        email=email,
        lifetime=timedelta(minutes=minutes),
        user_id=user.id,
    )
    message = delivery.mailer(request.app).compose(
        "merge_code",
        owner.language,
        email,
        name=greeting_name(owner.first_name, email),
        code=code,
        minutes=str(minutes),
    )
    assert row.id is not None
    await delivery.commit_and_send(session, request.app, message, row.id)
    return EmailLinkResponse(
        message=MERGE_CODE_SENT, email=email, merge_required=True, merge_verification="email_code"
    )


@router.post(
    "/email/merge/verify",
    responses={
        400: f"{NO_PENDING}, {EXPIRED_CODE}, {INVALID_CODE}, or {ACCOUNT_GONE}",
        429: "Too many requests, or too many wrong codes (the pending merge is dropped)",
        **RATE_LIMITED,
    },
)
async def verify_email_merge(
    request: Request, session: AsyncSession, principal: Principal, payload: EmailMergeVerifyRequest
) -> EmailMergeVerifyResponse:
    """Confirm an email account merge with the code mailed to the existing account.

    Proves the caller controls that account's inbox, then mints the merge token (consumed at
    POST /cabinet/auth/merge/{token}). After `CABINET_EMAIL_CHANGE_MAX_ATTEMPTS` wrong codes
    the pending merge is dropped (429).
    """
    await limit(request, "email_merge_verify")
    user = await current_user(session, principal)
    assert user.id is not None
    row = await tokens.newest_for_user(session, MERGE, user.id)
    if row is None:
        raise HTTPError(400, NO_PENDING)
    if tokens.is_expired(row):
        raise HTTPError(400, EXPIRED_CODE)
    if not tokens.codes_match(row.token_hash, _secret(request), user.id, payload.code, CODE_PURPOSE):
        row.attempts += 1
        if row.attempts >= settings(request).CABINET_EMAIL_CHANGE_MAX_ATTEMPTS:
            await tokens.discard(session, MERGE, user_id=user.id)
            await session.commit()
            raise HTTPError(429, TOO_MANY_ATTEMPTS)
        session.add(row)
        await session.commit()
        raise HTTPError(400, INVALID_CODE)
    if not await tokens.use(session, row):
        raise HTTPError(400, NO_PENDING)
    owner = await accounts.owner_other_than(session, row.email, user.id)
    if owner is None or owner.id is None or owner.status == "deleted":
        raise HTTPError(400, ACCOUNT_GONE)
    token, ttl = await offer_merge(
        request.app,
        session,
        primary_user_id=user.id,
        secondary_user_id=owner.id,
        method="email",
        subject=row.email,
    )
    return EmailMergeVerifyResponse(
        message="Email ownership confirmed. Review and confirm the merge.",
        merge_token=token,
        expires_in_seconds=ttl,
    )

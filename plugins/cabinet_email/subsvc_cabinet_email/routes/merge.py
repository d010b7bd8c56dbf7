"""Merging with the account that holds an address (`POST /cabinet/auth/email/register` found
it registered to another account): a 6-digit code mailed to that address proves inbox
control; `POST /cabinet/auth/email/merge/verify` takes it back and mints the merge token of
the OAuth plugin (`POST /cabinet/auth/merge/{token}` merges)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_oauth.api import offer_merge
from subsvc_users.api import User

from subsvc.api import HTTPError
from subsvc.auth.principal import Principal
from subsvc.ratelimit import RATE_LIMITED
from subsvc.services import services
from subsvc_cabinet_email import accounts, tokens
from subsvc_cabinet_email.models import MERGE
from subsvc_cabinet_email.routes.common import (
    EXPIRED_CODE,
    INVALID_CODE,
    current_user,
    greeting_name,
    limit,
    mail_code,
    new_router,
    redeem_code,
)
from subsvc_cabinet_email.schemas import EmailLinkResponse, EmailMergeVerifyRequest, EmailMergeVerifyResponse

router = new_router()

MERGE_CODE_SENT = "This email belongs to another account. A confirmation code was sent to it."
NO_PENDING = "No pending email merge"
ACCOUNT_GONE = "The account of this email no longer exists"


def merging_available(request: Request) -> bool:
    """Merges are done by the OAuth plugin: offered only while it runs."""
    return any(info.name == "cabinet_oauth" for info in services(request.app).plugins.enabled)


async def mail_merge_code(
    request: Request, session: AsyncSession, user: User, owner: User, email: str
) -> EmailLinkResponse:
    """Mail a merge code to ``email`` (held by ``owner``) for ``user``; a new one replaces the
    pending one."""
    assert user.id is not None
    await tokens.discard(session, MERGE, user_id=user.id)
    await mail_code(
        request,
        session,
        MERGE,
        user_id=user.id,
        email=email,
        template="merge_code",
        mail_language=owner.language,
        name=greeting_name(owner.first_name, email),
    )
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
    row = await redeem_code(request, session, MERGE, user.id, payload.code, no_pending=NO_PENDING)
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

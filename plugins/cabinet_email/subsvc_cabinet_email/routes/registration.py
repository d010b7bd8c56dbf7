"""`POST /cabinet/auth/email/register` (link to the logged-in account), `/email/register/standalone`
(a new account), `/email/verify` (the mailed link: verifies and logs in), `/email/resend`."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_auth.api import (
    CONSENT_RESPONSES,
    AuthResponse,
    MessageResponse,
    issue_session,
    record_consent,
    record_first_campaign,
    require_legal_consent,
)
from subsvc_users.api import User

from subsvc.api import HTTPError
from subsvc.auth.principal import Principal
from subsvc.ratelimit import RATE_LIMITED, client_ip
from subsvc_cabinet_email import accounts, tokens
from subsvc_cabinet_email.models import VERIFY, EmailToken
from subsvc_cabinet_email.routes import merge
from subsvc_cabinet_email.routes.common import (
    current_user,
    limit,
    mail_user_link,
    mail_verification_link,
    new_router,
    passwords,
    redeem_link,
    require_links,
    require_smtp,
    settings,
)
from subsvc_cabinet_email.schemas import (
    EmailLinkResponse,
    EmailRegisterRequest,
    EmailRegisterStandaloneRequest,
    EmailVerifyRequest,
    RegisterResponse,
)

router = new_router()

ALREADY_VERIFIED = "You already have a verified email"
ALREADY_LINKED = "This email is already linked to your account"
OWNED_BY_ANOTHER = "This email is already registered to another account"
INVALID_TOKEN = "Invalid verification token"  # noqa: S105 - a message
EXPIRED_TOKEN = "Verification token has expired"  # noqa: S105 - a message
NOT_ACTIVE = "User account is not active"
NOTHING_TO_VERIFY = "No email address to verify"
EMAIL_VERIFIED = "Email is already verified"
VERIFICATION_DISABLED = "Email verification is disabled"
SENT = "Verification email sent"


@router.post(
    "/email/register",
    responses={
        400: "Already verified, same address, disposable address",
        409: "The address belongs to another account (not verified there, or merging unavailable)",
        503: "Email service is not configured, or the mail could not be sent",
        **RATE_LIMITED,
    },
)
async def register_email(
    request: Request, session: AsyncSession, principal: Principal, payload: EmailRegisterRequest
) -> EmailLinkResponse:
    """Link an e-mail and a password to the logged-in account.

    With verification on, a link is mailed to the address and the account gets the address
    and the password when the link is opened (`POST /email/verify`); until then nothing
    changes. With verification off, both are set at once. An address verified by another
    account gets a 6-digit code mailed to it (`merge_required`, `merge_verification:
    "email_code"`): `POST /email/merge/verify` with it offers the merge. An address another
    account holds unverified is 409 (its inbox proves nothing about that account).
    """
    await limit(request, "email_register")
    user = await current_user(session, principal)
    if user.email and user.email_verified:
        raise HTTPError(400, ALREADY_VERIFIED)
    email = accounts.normalise(payload.email)
    accounts.check_new_address(request.app, email)
    if user.email == email:
        raise HTTPError(400, ALREADY_LINKED)
    owner = await accounts.owner_other_than(session, email, user.id)
    if owner is not None:
        if not (owner.email_verified and owner.status != "deleted" and merge.merging_available(request)):
            raise HTTPError(409, OWNED_BY_ANOTHER)
        require_smtp(request)
        return await merge.mail_merge_code(request, session, user, owner, email)
    enabled = settings(request).CABINET_EMAIL_VERIFICATION_ENABLED
    if enabled:
        require_links(request)
    password_hash = await passwords(request).hash(payload.password)
    if not enabled:
        await accounts.link_verified_address(
            session, user, email, accounts.VERIFIED_WITHOUT_MAIL, password_hash=password_hash
        )
        return EmailLinkResponse(message="Email linked successfully", email=email)
    await mail_user_link(request, session, user, email, password_hash)
    return EmailLinkResponse(message=SENT, email=email)


@router.post(
    "/email/register/standalone",
    public=True,
    responses={
        400: "Address already registered, or disposable",
        503: "Email service is not configured, or the mail could not be sent",
        **CONSENT_RESPONSES,
        **RATE_LIMITED,
    },
)
async def register_email_standalone(
    request: Request, session: AsyncSession, payload: EmailRegisterStandaloneRequest
) -> RegisterResponse:
    """A new account with an e-mail and a password, without a messenger account.

    With verification on, the account is made when the mailed link is opened
    (`POST /email/verify`, which also logs in); registering again before that mails a new
    link. With verification off, the account is made at once and can log in. The legal
    documents a new account must accept (`GET /cabinet/info/legal-consent`) are required here
    (428) and recorded, with `campaign_slug` (first touch), when the account is made.
    """
    await limit(request, "email_register")
    email = accounts.normalise(payload.email)
    accounts.check_new_address(request.app, email)
    if await accounts.user_by_email(session, email) is not None:
        raise HTTPError(400, accounts.ALREADY_REGISTERED)
    await require_legal_consent(request, session, payload.language, payload.accepted_legal_documents)
    enabled = settings(request).CABINET_EMAIL_VERIFICATION_ENABLED
    if enabled:
        require_links(request)
    password_hash = await passwords(request).hash(payload.password)
    profile = {
        "first_name": payload.first_name,
        "language": payload.language,
        "referral_code": payload.referral_code,
    }
    arrival = {
        "campaign_slug": payload.campaign_slug,
        "legal_documents": ",".join(payload.accepted_legal_documents or ()) or None,
        "consent_ip": client_ip(request),
    }
    if not enabled:
        user = await accounts.create_account(
            request.app,
            session,
            email=email,
            password_hash=password_hash,
            source=accounts.VERIFIED_WITHOUT_MAIL,
            **profile,
        )
        await _record_arrival(request, session, user, **arrival)
        return RegisterResponse(message="Registration complete", email=email, requires_verification=False)
    await mail_verification_link(
        request,
        session,
        email=email,
        name=payload.first_name,
        mail_language=payload.language,
        password_hash=password_hash,
        **profile,
        **arrival,
    )
    return RegisterResponse(message="Verification email sent. Please check your inbox.", email=email)


async def _record_arrival(
    request: Request,
    session: AsyncSession,
    user: User,
    *,
    campaign_slug: str | None,
    legal_documents: str | None,
    consent_ip: str | None,
) -> None:
    """What a new e-mail account brought: its accepted legal documents and first campaign."""
    assert user.id is not None
    documents = legal_documents.split(",") if legal_documents else []
    await record_consent(
        request, session, user.id, documents, language=user.language, source="email", ip_address=consent_ip
    )
    await record_first_campaign(session, user.id, campaign_slug, "email")


async def _verified_user(request: Request, session: AsyncSession, row: EmailToken) -> User:
    """The account the verified link stands for: made now (a registration) or updated."""
    if row.user_id is None:
        assert row.password_hash is not None
        made = await accounts.create_account(
            request.app,
            session,
            email=row.email,
            password_hash=row.password_hash,
            first_name=row.first_name,
            language=row.language,
            referral_code=row.referral_code,
            source=accounts.VERIFIED_BY_MAIL,
        )
        await _record_arrival(
            request,
            session,
            made,
            campaign_slug=row.campaign_slug,
            legal_documents=row.legal_documents,
            consent_ip=row.consent_ip,
        )
        return made
    user = await session.get(User, row.user_id, with_for_update=True)
    if user is None:
        raise HTTPError(400, INVALID_TOKEN)
    if user.status != "active":
        raise HTTPError(403, NOT_ACTIVE)
    await accounts.apply_verification(session, user, row, accounts.VERIFIED_BY_MAIL)
    return user


@router.post(
    "/email/verify",
    public=True,
    responses={
        400: "Invalid, used or expired token; address taken meanwhile",
        403: "Account not active",
        **RATE_LIMITED,
    },
)
async def verify_email(request: Request, session: AsyncSession, payload: EmailVerifyRequest) -> AuthResponse:
    """Open a mailed verification link: the address is verified (a pending registration
    becomes an account) and the caller is logged in. Each link works once."""
    await limit(request, "email_verify")
    row = await redeem_link(session, VERIFY, payload.token, invalid=INVALID_TOKEN, expired=EXPIRED_TOKEN)
    user = await _verified_user(request, session, row)
    return await issue_session(request, session, user, device_info="email")


@router.post(
    "/email/resend",
    responses={
        400: "No address to verify, already verified, or verification disabled",
        503: "Email service is not configured, or the mail could not be sent",
        **RATE_LIMITED,
    },
)
async def resend_verification(
    request: Request, session: AsyncSession, principal: Principal
) -> MessageResponse:
    """Mail a new verification link for the address waiting to be verified (the one given to
    `/email/register`, else the account's unverified address). Earlier links stay valid
    until one of them is used."""
    await limit(request, "email_resend")
    user = await current_user(session, principal)
    if user.email and user.email_verified:
        raise HTTPError(400, EMAIL_VERIFIED)
    assert user.id is not None
    pending = await tokens.newest_for_user(session, VERIFY, user.id)
    email = pending.email if pending is not None else user.email
    if not email:
        raise HTTPError(400, NOTHING_TO_VERIFY)
    if not settings(request).CABINET_EMAIL_VERIFICATION_ENABLED:
        raise HTTPError(400, VERIFICATION_DISABLED)
    require_links(request)
    await mail_user_link(
        request, session, user, email, pending.password_hash if pending is not None else None
    )
    return MessageResponse(message=SENT)

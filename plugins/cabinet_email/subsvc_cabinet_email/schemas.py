"""The wire contract of the e-mail endpoints (fields and bounds as the reference's)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, EmailStr, Field
from subsvc_cabinet_auth.api import LegalDocuments

Password = Annotated[str, Field(min_length=8, max_length=128, description="Password (min 8 chars)")]
CampaignSlug = Annotated[
    str | None,
    Field(
        min_length=1, max_length=64, pattern=r"^[a-zA-Z0-9_-]+$", description="Campaign slug from web link"
    ),
]
Token = Annotated[str, Field(max_length=2048)]


class EmailRegisterRequest(BaseModel):
    """Link an e-mail and a password to the logged-in account."""

    email: EmailStr = Field(description="Email address")
    password: Password


class EmailRegisterStandaloneRequest(BaseModel):
    """A new account with an e-mail and a password (no messenger account needed)."""

    email: EmailStr = Field(description="Email address")
    password: Password
    first_name: str | None = Field(None, max_length=64, description="First name")
    language: str = Field(
        "ru", max_length=5, pattern=r"^[a-z]{2}$", description="Preferred language (ISO 639-1)"
    )
    referral_code: str | None = Field(
        None, max_length=32, pattern=r"^[a-zA-Z0-9_-]+$", description="Referral code of inviter"
    )
    campaign_slug: CampaignSlug = None
    accepted_legal_documents: LegalDocuments = None


class RegisterResponse(BaseModel):
    message: str = Field(description="Success message")
    email: str = Field(description="Email address to verify")
    requires_verification: bool = Field(True, description="Whether email verification is required")


class EmailLinkResponse(BaseModel):
    """The address was linked or a link mailed; or, when it is another account's, a code was
    mailed to it (``merge_required``: confirm with ``POST /email/merge/verify``)."""

    message: str
    email: str
    merge_required: bool = False
    merge_verification: str | None = Field(None, description="`email_code` when a merge code was mailed")
    merge_token: str | None = Field(None, description="Always null here: the merge token comes from the code")


class EmailMergeVerifyRequest(BaseModel):
    """Request to confirm an email account merge with the emailed code."""

    code: str = Field(min_length=6, max_length=6, pattern=r"^\d{6}$", description="6-digit confirmation code")


class EmailMergeVerifyResponse(BaseModel):
    """The code proved control of the other account's address: merge with the token
    (``GET|POST /cabinet/auth/merge/{merge_token}``)."""

    success: bool = True
    message: str
    merge_required: bool = True
    merge_token: str
    expires_in_seconds: int


class EmailVerifyRequest(BaseModel):
    token: Token = Field(description="Email verification token")
    campaign_slug: CampaignSlug = None


class EmailLoginRequest(BaseModel):
    email: EmailStr = Field(description="Email address")
    password: str = Field(min_length=1, max_length=128, description="Password")
    campaign_slug: CampaignSlug = None


class PasswordForgotRequest(BaseModel):
    email: EmailStr = Field(description="Email address")


class PasswordResetRequest(BaseModel):
    token: Token = Field(description="Password reset token")
    password: str = Field(min_length=8, max_length=128, description="New password (min 8 chars)")


class EmailChangeRequest(BaseModel):
    new_email: EmailStr = Field(description="New email address")


class EmailChangeResponse(BaseModel):
    message: str = Field(description="Success message")
    new_email: str = Field(description="New email address pending verification")
    expires_in_minutes: int = Field(description="Code expiration time in minutes")


class EmailChangeVerifyRequest(BaseModel):
    code: str = Field(min_length=6, max_length=6, pattern=r"^\d{6}$", description="6-digit verification code")


class EmailChangeDone(BaseModel):
    message: str
    new_email: str


class EmailChangeStatus(BaseModel):
    pending: bool
    new_email: str | None = None
    expires_at: datetime | None = None


class MessageResponse(BaseModel):
    message: str

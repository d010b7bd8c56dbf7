"""Request and response models of the cabinet's authentication (the wire contract)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from subsvc.api import BigInt

CampaignSlug = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-zA-Z0-9_-]+$")]
InviterCode = Annotated[str, Field(max_length=32, pattern=r"^[a-zA-Z0-9_-]+$")]
LegalDocuments = Annotated[
    list[str] | None,
    Field(
        max_length=8,
        description="Keys of the legal documents the user accepted on the first-login screen "
        "(see GET /cabinet/info/legal-consent). Needed only when the login makes a NEW account; "
        "ignored for an existing one.",
    ),
]


# --- responses -----------------------------------------------------------------------------


class CabinetUserResponse(BaseModel):
    """The logged-in user as the cabinet shows it (``GET /cabinet/auth/me``, ``AuthResponse.user``)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    messenger_id: int | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    email_verified: bool = False
    balance_kopeks: int = 0
    referral_code: str | None = None
    language: str = "ru"
    created_at: datetime
    auth_type: str = "messenger"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def balance_rubles(self) -> float:
        return round(self.balance_kopeks / 100, 2)


class CampaignBonusInfo(BaseModel):
    """A campaign bonus applied while logging in."""

    campaign_name: str
    bonus_type: str
    balance_kopeks: int = 0
    subscription_days: int | None = None
    tariff_name: str | None = None


class TokenResponse(BaseModel):
    """An access token (and the refresh token it was made with)."""

    access_token: str
    refresh_token: str
    token_type: str = "bearer"  # noqa: S105 - the scheme's name
    expires_in: int = Field(description="Access token expiration in seconds")


class AuthResponse(TokenResponse):
    """What every login answers: the tokens and the user."""

    user: CabinetUserResponse
    campaign_bonus: CampaignBonusInfo | None = None


class MessageResponse(BaseModel):
    message: str


class IsAdminResponse(BaseModel):
    is_admin: bool


class PermissionsResponse(BaseModel):
    """The caller's RBAC standing."""

    permissions: list[str]
    roles: list[str]
    role_level: int


class DeepLinkTokenResponse(BaseModel):
    """A one-time token the user confirms in the bot (``/start webauth_<token>``)."""

    token: str = Field(description="One-time auth token")
    bot_username: str = Field(description="Bot username for deep link")
    expires_in: int = Field(description="Token TTL in seconds")


class DeepLinkConfirmResponse(BaseModel):
    """The bot confirmed a deep-link token for this user."""

    status: str = "confirmed"
    user_id: int


# --- requests ------------------------------------------------------------------------------


class _Attribution(BaseModel):
    campaign_slug: CampaignSlug | None = Field(default=None, description="Campaign slug from web link")
    referral_code: InviterCode | None = Field(default=None, description="Referral code of inviter")
    accepted_legal_documents: LegalDocuments = None


class MessengerAuthRequest(_Attribution):
    """The mini application's init data."""

    init_data: str = Field(max_length=4096, description="The messenger's WebApp initData string")


class MessengerWidgetAuthRequest(_Attribution):
    """The login widget's fields, as the widget hands them over."""

    id: BigInt = Field(description="Messenger user ID")
    first_name: str = Field(max_length=64, description="User's first name")
    last_name: str | None = Field(default=None, max_length=64, description="User's last name")
    username: str | None = Field(default=None, max_length=32, description="User's username")
    photo_url: str | None = Field(default=None, max_length=512, description="User's photo URL")
    auth_date: BigInt = Field(description="Unix timestamp of authentication")
    hash: str = Field(min_length=64, max_length=64, description="Authentication hash")

    def signed_fields(self) -> dict[str, Any]:
        """The fields the widget signed: every non-null one but the hash, the attribution and
        the accepted documents (the cabinet adds those, the messenger never signs them)."""
        data = self.model_dump(exclude={"hash", "campaign_slug", "referral_code", "accepted_legal_documents"})
        return {key: value for key, value in data.items() if value is not None}


class MessengerOIDCAuthRequest(_Attribution):
    """An OpenID Connect ID token from the messenger's login popup."""

    id_token: str = Field(max_length=4096, description="JWT id_token from the messenger's OIDC popup")


class RefreshTokenRequest(BaseModel):
    refresh_token: str = Field(max_length=2048, description="Refresh token")


class AutoLoginRequest(BaseModel):
    token: str = Field(max_length=2048, description="Auto-login JWT token")


class DeepLinkPollRequest(BaseModel):
    token: str = Field(min_length=16, max_length=128, description="Deep link auth token")
    campaign_slug: CampaignSlug | None = Field(
        default=None, description="Campaign slug captured from cabinet URL"
    )


class DeepLinkConfirmRequest(BaseModel):
    """The bot's confirmation: the user who opened the deep link."""

    token: str = Field(min_length=16, max_length=128, description="The token from `/start webauth_<token>`")
    messenger_id: int = Field(ge=1, le=2**63 - 1, description="Messenger id of the user who opened it")

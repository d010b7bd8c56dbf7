"""Request and response models of OAuth login, account linking and account merge (the wire
contract, field for field as the reference)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator
from subsvc_cabinet_auth.api import CabinetUserResponse, CampaignSlug, InviterCode

from subsvc.api import BigInt

ProviderName = Literal["google", "yandex", "discord", "vk"]
Code = Annotated[str, Field(min_length=1, max_length=2048, description="Authorization code from provider")]
State = Annotated[str, Field(min_length=1, max_length=128, description="CSRF state token")]
DeviceId = Annotated[
    str | None, Field(default=None, max_length=256, description="Device ID from VK ID callback")
]
MergeTokenText = Annotated[str, Field(min_length=32, max_length=64)]


# --- OAuth login ---------------------------------------------------------------------------------


class OAuthProviderInfo(BaseModel):
    name: str
    display_name: str


class OAuthProvidersResponse(BaseModel):
    providers: list[OAuthProviderInfo]


class OAuthAuthorizeResponse(BaseModel):
    authorize_url: str
    state: str


class OAuthCallbackRequest(BaseModel):
    code: Code
    state: State
    device_id: DeviceId = None
    campaign_slug: CampaignSlug | None = Field(default=None, description="Campaign slug from web link")
    referral_code: InviterCode | None = Field(default=None, description="Referral code of inviter")


# --- account linking -----------------------------------------------------------------------------


class LinkedProvider(BaseModel):
    provider: str
    linked: bool
    identifier: str | None = None


class LinkedProvidersResponse(BaseModel):
    providers: list[LinkedProvider]


class LinkInitResponse(BaseModel):
    authorize_url: str
    state: str


class LinkCallbackRequest(BaseModel):
    code: Code
    state: State
    device_id: DeviceId = None


class LinkCallbackResponse(BaseModel):
    success: bool
    message: str | None = None
    merge_required: bool = False
    merge_token: str | None = None


class ServerCompleteRequest(BaseModel):
    code: Code
    state: State
    provider: ProviderName | None = Field(
        default=None, description="OAuth provider name (resolved from state if omitted)"
    )
    device_id: DeviceId = None


class ServerCompleteResponse(LinkCallbackResponse):
    provider: str


class UnlinkResponse(BaseModel):
    success: bool


class LinkMessengerRequest(BaseModel):
    """Request for linking a messenger account. Supply EITHER init_data, id_token, OR widget fields."""

    init_data: str | None = Field(
        default=None, max_length=4096, description="The messenger's WebApp initData string"
    )
    id_token: str | None = Field(
        default=None, max_length=4096, description="The messenger's OIDC id_token (JWT)"
    )
    id: BigInt | None = Field(default=None, description="Messenger user ID from Login Widget")
    first_name: str | None = Field(default=None, max_length=256, description="User's first name")
    last_name: str | None = Field(default=None, max_length=256, description="User's last name")
    username: str | None = Field(default=None, max_length=256, description="User's username")
    photo_url: str | None = Field(default=None, max_length=2048, description="User's photo URL")
    auth_date: BigInt | None = Field(default=None, description="Unix timestamp of authentication")
    hash: str | None = Field(
        default=None, min_length=64, max_length=64, description="Authentication hash (SHA-256 hex)"
    )

    @model_validator(mode="after")
    def one_mode(self) -> LinkMessengerRequest:
        widget = self.id is not None or self.hash is not None or self.auth_date is not None
        modes = sum([self.init_data is not None, self.id_token is not None, widget])
        if modes > 1:
            raise ValueError("Provide exactly one of: init_data, id_token, or Login Widget fields")
        if modes == 0:
            raise ValueError(
                "Provide one of: init_data, id_token, or Login Widget fields (id, auth_date, hash)"
            )
        if widget and (self.id is None or self.auth_date is None or self.hash is None):
            raise ValueError("Login Widget mode requires id, auth_date, and hash fields")
        return self


# --- account merge -------------------------------------------------------------------------------


class MergePreviewSubscription(BaseModel):
    status: str
    is_trial: bool
    end_date: datetime | None = None
    traffic_limit_gb: float
    traffic_used_gb: float
    device_limit: int
    tariff_name: str | None = None
    autopay_enabled: bool


class MergePreviewUser(BaseModel):
    id: int
    username: str | None = None
    first_name: str | None = None
    email: str | None = None
    auth_methods: list[str]
    balance_kopeks: int = 0
    subscription: MergePreviewSubscription | None = None
    created_at: datetime | None = None


class MergePreviewResponse(BaseModel):
    primary: MergePreviewUser
    secondary: MergePreviewUser
    expires_in_seconds: int


class MergeRequest(BaseModel):
    keep_subscription_from: int = Field(description="User ID whose subscription to keep")


class MergeResponse(BaseModel):
    success: bool
    access_token: str | None = None
    refresh_token: str | None = None
    user: CabinetUserResponse | None = None


class AccountMergedPayload(BaseModel):
    """Event ``account.merged``: ``secondary_user_id`` was folded into ``primary_user_id``
    (published in the merging transaction)."""

    primary_user_id: int
    secondary_user_id: int
    provider: str
    moved_balance_kopeks: int
    kept_subscription_from: int
    moved_subscription_ids: list[int]
    disabled_subscription_ids: list[int]

"""The add-on operations' wire models (field names as the cabinet's clients read them)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class DeviceInfo(BaseModel):
    """A device connected to the subscription's panel account, with the user's own name."""

    hwid: str
    platform: str
    device_model: str
    created_at: str | None = None
    local_name: str | None = Field(None, description="The user's name of the device (null: none given).")


class DeviceListResponse(BaseModel):
    devices: list[DeviceInfo]
    total: int
    device_limit: int


class DeviceDeleted(BaseModel):
    success: bool = True
    message: str
    deleted_hwid: str


class DevicesDeleted(BaseModel):
    success: bool = True
    message: str
    deleted_count: int


class DeviceRenameRequest(BaseModel):
    """A device's name (at most 64 characters are kept); null or empty clears it."""

    name: str | None = None


class DeviceRenamed(BaseModel):
    hwid: str
    local_name: str | None


class Instructions(BaseModel):
    steps: list[str]


class ConnectionLink(BaseModel):
    """How the subscription is connected: its link (null when hidden) and, in Happ's crypto
    link mode, the app's links."""

    subscription_url: str | None
    display_link: str | None
    happ_redirect_link: str | None = None
    happ_scheme_link: str | None = None
    happ_crypto_link: str | None = None
    connect_mode: str
    hide_link: bool
    instructions: Instructions


class Revoked(ConnectionLink):
    """The connection after its link was revoked: the new link."""

    success: bool = True
    message: str = "Subscription link revoked"


class HappPlatformLink(BaseModel):
    name: str
    icon: str
    link: str


class HappDownloads(BaseModel):
    platforms: dict[str, HappPlatformLink]
    happ_enabled: bool


class TrafficRefresh(BaseModel):
    """The subscription's traffic as the panel counts it (``source`` ``panel``), as we last
    stored it (``database``: no panel account to ask), or the panel's answer of the last
    minute again (``cached``, when asked again within the rate limit)."""

    success: bool = True
    cached: bool = False
    rate_limited: bool = False
    retry_after_seconds: int | None = None
    source: str
    traffic_used_bytes: int
    traffic_used_gb: float
    traffic_limit_bytes: int
    traffic_limit_gb: int
    traffic_used_percent: float
    is_unlimited: bool
    lifetime_used_bytes: int = 0
    lifetime_used_gb: float = 0.0

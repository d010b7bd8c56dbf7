"""Wire models of the mini app's add-on operations (the contract's names and spelling; the
traffic top-up answers the addons plugin's model, the contract leaves its shape open)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from subsvc_miniapp.dashboard_schemas import MiniAppConnectedServer
from subsvc_miniapp.schemas import MiniAppRequest

Squads = Field(None, max_length=100)


class MiniAppSubscriptionServersUpdateRequest(MiniAppRequest):
    subscription_id: int | None = None
    servers: list[str] | None = Squads
    squads: list[str] | None = Squads
    server_uuids: list[str] | None = Squads
    squad_uuids: list[str] | None = Squads


class MiniAppSubscriptionTrafficUpdateRequest(MiniAppRequest):
    subscription_id: int | None = None
    traffic: int | None = None
    traffic_gb: int | None = None


class MiniAppSubscriptionDevicesUpdateRequest(MiniAppRequest):
    subscription_id: int | None = None
    devices: int | None = None
    device_limit: int | None = None


class MiniAppSubscriptionUpdateResponse(BaseModel):
    success: bool = True
    message: str | None = None


class MiniAppTrafficTopupRequest(MiniAppRequest):
    subscriptionId: int | None = None
    gb: int


class MiniAppSubscriptionSettingsRequest(MiniAppRequest):
    subscription_id: int | None = None


class MiniAppSubscriptionCurrentSettings(BaseModel):
    servers: list[MiniAppConnectedServer] = Field(default_factory=list)
    traffic_limit_gb: int | None = None
    traffic_limit_label: str | None = None
    device_limit: int = 0


class MiniAppSubscriptionServerOption(BaseModel):
    uuid: str
    name: str | None = None
    price_kopeks: int | None = None
    price_label: str | None = None
    discount_percent: int | None = None
    is_connected: bool = False
    is_available: bool = True
    disabled_reason: str | None = None


class MiniAppSubscriptionServersSettings(BaseModel):
    available: list[MiniAppSubscriptionServerOption] = Field(default_factory=list)
    min: int = 0
    max: int = 0
    can_update: bool = True
    hint: str | None = None


class MiniAppSubscriptionTrafficOption(BaseModel):
    value: int | None = None
    label: str | None = None
    price_kopeks: int | None = None
    price_label: str | None = None
    is_current: bool = False
    is_available: bool = True
    description: str | None = None


class MiniAppSubscriptionTrafficSettings(BaseModel):
    options: list[MiniAppSubscriptionTrafficOption] = Field(default_factory=list)
    can_update: bool = True
    current_value: int | None = None


class MiniAppSubscriptionDeviceOption(BaseModel):
    value: int
    label: str | None = None
    price_kopeks: int | None = None
    price_label: str | None = None


class MiniAppSubscriptionDevicesSettings(BaseModel):
    options: list[MiniAppSubscriptionDeviceOption] = Field(default_factory=list)
    can_update: bool = True
    min: int = 0
    max: int = 0
    step: int = 1
    current: int = 0
    price_kopeks: int | None = None
    price_label: str | None = None


class MiniAppSubscriptionBillingContext(BaseModel):
    months_remaining: int = 1
    period_hint_days: int | None = None
    renews_at: str | None = None


class MiniAppSubscriptionSettings(BaseModel):
    subscription_id: int
    currency: str = "RUB"
    current: MiniAppSubscriptionCurrentSettings
    servers: MiniAppSubscriptionServersSettings
    traffic: MiniAppSubscriptionTrafficSettings
    devices: MiniAppSubscriptionDevicesSettings
    billing: MiniAppSubscriptionBillingContext | None = None


class MiniAppSubscriptionSettingsResponse(BaseModel):
    success: bool = True
    settings: MiniAppSubscriptionSettings

"""Wire models of the mini app's add-on operations (the contract's names and spelling; the
traffic top-up answers the addons plugin's model, the contract leaves its shape open)."""

from __future__ import annotations

from pydantic import BaseModel, Field

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

"""The wire models of the recurrent plugin (release 4.1.0 leaves the answers free-form)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class RecurrentState(BaseModel):
    """A provider's auto-renewal of one subscription, as the cabinet shows it."""

    provider: str = Field(description="`platega` or `lava`")
    subscription_id: int
    available: bool = Field(description="Whether this service can set up the provider's auto-renewal")
    enabled: bool = Field(description="Whether the provider's auto-renewal is active for the subscription")
    status: str | None = Field(None, description="The provider's state of the auto-renewal; null: none")
    autopay_enabled: bool = Field(description="The subscription's autopay from the balance")
    message: str


class RecurrentCancelled(BaseModel):
    """``POST .../cancel``: ``cancelled`` tells whether an active auto-renewal was stopped."""

    success: bool = True
    cancelled: bool
    message: str

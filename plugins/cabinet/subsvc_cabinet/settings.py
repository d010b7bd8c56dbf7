"""Settings of the cabinet plugin (read from the environment like core's)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class CabinetSettings(BaseSettings):
    """How the cabinet shows a subscription."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    HIDE_SUBSCRIPTION_LINK: bool = Field(
        False, description="Tell the cabinet to hide the subscription link (`hide_subscription_link`)."
    )
    DEFAULT_TRAFFIC_RESET_STRATEGY: Literal["NO_RESET", "DAY", "WEEK", "MONTH"] = Field(
        "MONTH", description="Traffic reset mode shown for a subscription without a tariff of its own."
    )

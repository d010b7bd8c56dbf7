"""Settings of the cabinet plugin (read from the environment like core's)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from subsvc.settings import PluginSettings


class CabinetSettings(PluginSettings):
    """How the cabinet shows a subscription."""

    HIDE_SUBSCRIPTION_LINK: bool = Field(
        False, description="Tell the cabinet to hide the subscription link (`hide_subscription_link`)."
    )
    DEFAULT_TRAFFIC_RESET_STRATEGY: Literal["NO_RESET", "DAY", "WEEK", "MONTH"] = Field(
        "MONTH", description="Traffic reset mode shown for a subscription without a tariff of its own."
    )

"""Settings of the renewals plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class RenewalsSettings(PluginSettings):
    """Tariff switches and the background jobs' rhythm (whether upgrades and downgrades are
    sold at all is the sales plugin's ``TARIFF_SWITCH_*_ENABLED``)."""

    TARIFF_SWITCH_RESET_FREE_DAYS: bool = Field(
        False,
        description="The days left on a free tariff are not carried to a paid one: a subscription on a "
        "free tariff cannot switch (`free_tariff_cannot_switch`), it buys a tariff instead.",
    )
    RESET_TRAFFIC_ON_PAYMENT: bool = Field(
        False, description="A renewal of an expired subscription resets its used traffic in the panel."
    )
    RESET_DEVICES_ON_RENEWAL: bool = Field(
        False, description="A renewal deletes the subscription's connected devices in the panel."
    )
    AUTOPAY_INTERVAL_SECONDS: float = Field(
        3600, ge=0, description="How often autopay renews the subscriptions due (0 = only when enqueued)."
    )
    DAILY_CHARGE_INTERVAL_SECONDS: float = Field(
        600, ge=0, description="How often the daily tariffs due are charged (0 = only when enqueued)."
    )
    EXPIRY_INTERVAL_SECONDS: float = Field(
        300,
        ge=0,
        description="How often subscriptions whose end has come are marked expired (0 = only when enqueued).",
    )

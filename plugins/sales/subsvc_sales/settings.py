"""Settings of the sales plugin (read from the environment like core's)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from subsvc.settings import PluginSettings


class SalesSettings(PluginSettings):
    """Saved carts and what a top-up does with them, trials, and the tariff switches sold
    (read by the renewals plugin, which switches, and shown by ``GET /purchase-options``)."""

    CART_TTL_SECONDS: int = Field(
        3600,
        ge=60,
        le=30 * 86400,
        description="How long a cart saved by a purchase the balance did not cover is kept.",
    )
    AUTO_PURCHASE_AFTER_TOPUP_ENABLED: bool = Field(
        False, description="A top-up completes the user's saved carts from the new balance (each once)."
    )
    TRIAL_PAYMENT_ENABLED: bool = Field(
        False, description="A trial costs `TRIAL_ACTIVATION_PRICE`, paid from the balance."
    )
    TRIAL_ACTIVATION_PRICE: int = Field(
        0, ge=0, le=100_000_000, description="Kopeks a trial costs while `TRIAL_PAYMENT_ENABLED`."
    )
    TRIAL_TARIFF_ID: int | None = Field(
        None,
        description="The tariff a trial is made on (its traffic, devices and squads); unset: the tariff "
        "marked for trials, else subscriptions' `TRIAL_*` settings.",
    )
    TRIAL_DISABLED_FOR: Literal["none", "email", "messenger", "all"] = Field(
        "none", description="Accounts that get no trial: e-mail-only ones, messenger ones, or all."
    )
    TARIFF_SWITCH_UPGRADE_ENABLED: bool = Field(
        True, description="A subscriber may switch to a dearer tariff (the renewals plugin switches)."
    )
    TARIFF_SWITCH_DOWNGRADE_ENABLED: bool = Field(
        True,
        description="A subscriber may switch to a cheaper (or equally priced) tariff (the renewals plugin "
        "switches).",
    )

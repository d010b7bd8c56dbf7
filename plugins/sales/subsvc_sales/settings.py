"""Settings of the sales plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class SalesSettings(PluginSettings):
    """Saved carts and what a top-up does with them."""

    CART_TTL_SECONDS: int = Field(
        3600,
        ge=60,
        le=30 * 86400,
        description="How long a cart saved by a purchase the balance did not cover is kept.",
    )
    AUTO_PURCHASE_AFTER_TOPUP_ENABLED: bool = Field(
        False, description="A top-up completes the user's saved carts from the new balance (each once)."
    )

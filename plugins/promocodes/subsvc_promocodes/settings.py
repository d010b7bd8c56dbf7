"""Settings of the promocodes plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class PromocodesSettings(PluginSettings):
    """Limits of activations and of the code detail."""

    PROMOCODE_DAILY_ACTIVATION_LIMIT: int = Field(
        5,
        ge=0,
        description="Activations one user may make in 24 hours (the reference's anti-stacking "
        "limit); 0 = no limit.",
    )
    PROMOCODE_RECENT_USES: int = Field(
        10, ge=0, le=200, description="How many of the latest activations a code's detail lists."
    )

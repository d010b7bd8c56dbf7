"""Settings of the landings plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class LandingsSettings(PluginSettings):
    """Where a guest comes back to after paying."""

    LANDINGS_CABINET_URL: str | None = Field(
        None,
        description="Public address of the cabinet: a payer comes back to `{url}/buy/success/{token}` "
        "unless the landing's method has its own `return_url` (`{token}` replaced); unset: the "
        "payments plugin's top-up return address.",
    )

"""Settings of the stats plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from subsvc.settings import PluginSettings


class StatsSettings(PluginSettings):
    """How long computed statistics are served."""

    model_config = SettingsConfigDict(frozen=False)

    STATS_CACHE_SECONDS: float = Field(
        5.0,
        ge=0,
        description=(
            "How long computed statistics are served before they are computed again (in the "
            "background: the last figures are served meanwhile); 0 computes on every request."
        ),
    )

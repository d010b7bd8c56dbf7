"""Settings of the campaigns plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class CampaignsSettings(PluginSettings):
    """Where the campaigns' links point."""

    CAMPAIGNS_BOT_USERNAME: str | None = Field(
        None, description="The messenger bot's username: `deep_link` is `https://t.me/{it}?start={slug}`."
    )
    CAMPAIGNS_CABINET_URL: str | None = Field(
        None, description="The cabinet's public address: `web_link` is `{it}/?campaign={slug}`."
    )

    def links(self, slug: str) -> tuple[str | None, str | None]:
        """The campaign's bot deep link and cabinet web link (none when unconfigured)."""
        bot = self.CAMPAIGNS_BOT_USERNAME
        cabinet = self.CAMPAIGNS_CABINET_URL
        return (
            f"https://t.me/{bot.lstrip('@')}?start={slug}" if bot else None,
            f"{cabinet.rstrip('/')}/?campaign={slug}" if cabinet else None,
        )

"""Settings of the addons plugin (read from the environment like core's)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from subsvc.settings import PluginSettings

HappPlatform = Literal["ios", "android", "macos", "windows", "linux"]


class AddonsSettings(PluginSettings):
    """What a subscriber may add, and how their connection is offered."""

    TRAFFIC_TOPUP_ENABLED: bool = Field(True, description="Classic mode: traffic packages can be bought.")
    DEVICES_PURCHASE_ENABLED: bool = Field(True, description="Extra devices can be bought.")
    ALLOW_DEVICES_BELOW_TARIFF_LIMIT: bool = Field(
        False, description="A device limit may be reduced below the tariff's included devices (down to 1)."
    )
    CONNECT_MODE: Literal["plain", "happ_cryptolink"] = Field(
        "plain", description="How the connection link is offered: the plain URL, or Happ's crypto link."
    )
    HAPP_CRYPTOLINK_REDIRECT_TEMPLATE: str = Field(
        "",
        description="happ_cryptolink mode: an https page opening the app, `{link}` replaced by the crypto "
        "link (empty: no redirect link).",
    )
    HAPP_DOWNLOAD_LINKS: dict[HappPlatform, str] = Field(
        default_factory=dict,
        description='JSON object of the Happ app\'s download links per platform, e.g. {"ios": "https://..."}.',
    )
    APP_CONFIG_FILE: Path | None = Field(
        None,
        description="JSON file of the connection apps per platform (`{{SUBSCRIPTION_LINK}}`, "
        "`{{HAPP_CRYPT3_LINK}}`, `{{HAPP_CRYPT4_LINK}}` replaced per subscription); unset = 404.",
    )

"""Settings of the cabinet_oauth plugin (read from the environment like core's)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from subsvc.settings import PluginSettings

PROVIDERS = ("google", "yandex", "discord", "vk")


@dataclass(frozen=True)
class ProviderConfig:
    """One provider's client credentials and endpoints, as the settings give them."""

    name: str
    enabled: bool
    client_id: str
    client_secret: str
    authorize_url: str
    token_url: str
    userinfo_url: str


def _enabled(provider: str) -> str:
    return f"Offer {provider} login (needs its client id, and its client secret except for VK ID)."


class CabinetOAuthSettings(PluginSettings):
    """OAuth clients for the four providers, where the cabinet lives, and token lifetimes."""

    CABINET_URL: str = Field(
        "http://localhost:3000",
        description="The cabinet's public URL; the OAuth redirect URI is `{CABINET_URL}/auth/oauth/callback` "
        "unless the request's Origin is an allowed one.",
    )
    OAUTH_STATE_TTL_SECONDS: int = Field(
        600, ge=60, le=3600, description="How long an OAuth state (login or linking) stays usable."
    )
    OAUTH_MERGE_TOKEN_TTL_SECONDS: int = Field(
        1800, ge=60, le=86400, description="How long a merge token (from a linking conflict) stays usable."
    )
    OAUTH_HTTP_TIMEOUT_SECONDS: float = Field(
        10.0, gt=0, le=120, description="Timeout of one request to a provider's token or userinfo endpoint."
    )

    OAUTH_GOOGLE_ENABLED: bool = Field(False, description=_enabled("Google"))
    OAUTH_GOOGLE_CLIENT_ID: str = Field("", description="Google OAuth client id.")
    OAUTH_GOOGLE_CLIENT_SECRET: str = Field("", description="Google OAuth client secret.")
    OAUTH_GOOGLE_AUTHORIZE_URL: str = Field(
        "https://accounts.google.com/o/oauth2/v2/auth", description="Google authorization endpoint."
    )
    OAUTH_GOOGLE_TOKEN_URL: str = Field(
        "https://oauth2.googleapis.com/token", description="Google token endpoint."
    )
    OAUTH_GOOGLE_USERINFO_URL: str = Field(
        "https://www.googleapis.com/oauth2/v3/userinfo", description="Google userinfo endpoint."
    )

    OAUTH_YANDEX_ENABLED: bool = Field(False, description=_enabled("Yandex"))
    OAUTH_YANDEX_CLIENT_ID: str = Field("", description="Yandex OAuth client id.")
    OAUTH_YANDEX_CLIENT_SECRET: str = Field("", description="Yandex OAuth client secret.")
    OAUTH_YANDEX_AUTHORIZE_URL: str = Field(
        "https://oauth.yandex.ru/authorize", description="Yandex authorization endpoint."
    )
    OAUTH_YANDEX_TOKEN_URL: str = Field("https://oauth.yandex.ru/token", description="Yandex token endpoint.")
    OAUTH_YANDEX_USERINFO_URL: str = Field(
        "https://login.yandex.ru/info", description="Yandex userinfo endpoint."
    )

    OAUTH_DISCORD_ENABLED: bool = Field(False, description=_enabled("Discord"))
    OAUTH_DISCORD_CLIENT_ID: str = Field("", description="Discord OAuth client id.")
    OAUTH_DISCORD_CLIENT_SECRET: str = Field("", description="Discord OAuth client secret.")
    OAUTH_DISCORD_AUTHORIZE_URL: str = Field(
        "https://discord.com/oauth2/authorize", description="Discord authorization endpoint."
    )
    OAUTH_DISCORD_TOKEN_URL: str = Field(
        "https://discord.com/api/oauth2/token", description="Discord token endpoint."
    )
    OAUTH_DISCORD_USERINFO_URL: str = Field(
        "https://discord.com/api/v10/users/@me", description="Discord current-user endpoint."
    )

    OAUTH_VK_ENABLED: bool = Field(False, description=_enabled("VK ID"))
    OAUTH_VK_CLIENT_ID: str = Field("", description="VK ID application id.")
    OAUTH_VK_CLIENT_SECRET: str = Field(
        "", description="VK ID secret key (optional: VK ID exchanges codes with PKCE; sent when set)."
    )
    OAUTH_VK_AUTHORIZE_URL: str = Field(
        "https://id.vk.ru/authorize", description="VK ID authorization endpoint."
    )
    OAUTH_VK_TOKEN_URL: str = Field("https://id.vk.ru/oauth2/auth", description="VK ID token endpoint.")
    OAUTH_VK_USERINFO_URL: str = Field(
        "https://id.vk.ru/oauth2/user_info", description="VK ID user-info endpoint."
    )

    def provider(self, name: str) -> ProviderConfig:
        """The configuration of provider ``name`` (one of :data:`PROVIDERS`)."""
        prefix = f"OAUTH_{name.upper()}_"
        client_id = getattr(self, prefix + "CLIENT_ID").strip()
        secret = getattr(self, prefix + "CLIENT_SECRET").strip()
        enabled = bool(getattr(self, prefix + "ENABLED") and client_id and (secret or name == "vk"))
        return ProviderConfig(
            name=name,
            enabled=enabled,
            client_id=client_id,
            client_secret=secret,
            authorize_url=getattr(self, prefix + "AUTHORIZE_URL"),
            token_url=getattr(self, prefix + "TOKEN_URL"),
            userinfo_url=getattr(self, prefix + "USERINFO_URL"),
        )

    def enabled_providers(self) -> list[ProviderConfig]:
        return [config for name in PROVIDERS if (config := self.provider(name)).enabled]

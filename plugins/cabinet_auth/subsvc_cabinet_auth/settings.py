"""Settings of the cabinet_auth plugin (environment variables, like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class CabinetAuthSettings(PluginSettings):
    """How long login credentials stay valid, and where the messenger's OIDC provider is."""

    CABINET_INIT_DATA_MAX_AGE_SECONDS: int = Field(
        30 * 86400,
        ge=1,
        description="Oldest mini-application init data accepted by `POST /cabinet/auth/messenger` "
        "(its `auth_date`; clients cache init data for long, the signature proves it).",
    )
    CABINET_WIDGET_MAX_AGE_SECONDS: int = Field(
        86400, ge=1, description="Oldest login-widget data accepted (its `auth_date`); each is usable once."
    )
    CABINET_AUTH_FUTURE_SKEW_SECONDS: int = Field(
        300, ge=0, description="How far in the future an `auth_date` may lie (clock skew)."
    )
    MESSENGER_OIDC_CLIENT_ID: str | None = Field(
        None, description="Client id at the messenger's OIDC provider (the ID token's audience); unset = off."
    )
    MESSENGER_OIDC_ISSUER: str | None = Field(
        None, description="Issuer (`iss`) of the messenger's ID tokens; needed with the client id."
    )
    MESSENGER_OIDC_JWKS_URL: str | None = Field(
        None, description="The provider's JWKS; unset = `<issuer>/.well-known/jwks.json`."
    )
    MESSENGER_OIDC_JWKS_CACHE_SECONDS: float = Field(
        3600.0, ge=0, description="How long fetched signing keys are kept (an unknown `kid` refetches)."
    )
    MESSENGER_OIDC_TIMEOUT_SECONDS: float = Field(5.0, gt=0, description="Timeout of one JWKS request.")
    BOT_USERNAME: str | None = Field(
        None, description="The bot's username, for deep-link login (`POST /cabinet/auth/deeplink/request`)."
    )
    CABINET_DEEPLINK_TOKEN_SECONDS: int = Field(
        300, ge=30, description="How long a deep-link login token waits for the bot's confirmation."
    )
    CABINET_SITE_VERIFICATION: dict[str, str] = Field(
        default_factory=dict,
        description="Site-verification tokens the cabinet puts in `<meta>` tags, JSON by name "
        '(`{"yandex-verification": "…", "google-site-verification": "…"}`; '
        "`GET /cabinet/public/site-verification`).",
    )
    CABINET_AUTO_LOGIN_TOKEN_HOURS: int = Field(
        72,
        ge=1,
        description="Lifetime of an auto-login token (`POST /cabinet/auth/login/auto`); each is usable once.",
    )

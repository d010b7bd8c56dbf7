"""Settings of the pages plugin (read from the environment like core's)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from subsvc.settings import PluginSettings

DisplayMode = Literal["bot", "web", "both"]
_MODE = (
    "Where to show the {what}: `bot`, `web` (the cabinet) or `both`; set, it is fixed (the "
    "cabinet's administrators cannot change it); unset, the stored choice (default `both`)."
)


class PagesSettings(PluginSettings):
    """Display modes of the documents, the legal consent, the cabinet's languages and the
    service's description."""

    FAQ_DISPLAY_MODE: DisplayMode | None = Field(None, description=_MODE.format(what="FAQ"))
    SERVICE_RULES_DISPLAY_MODE: DisplayMode | None = Field(
        None, description=_MODE.format(what="service rules")
    )
    PRIVACY_POLICY_DISPLAY_MODE: DisplayMode | None = Field(
        None, description=_MODE.format(what="privacy policy")
    )
    PUBLIC_OFFER_DISPLAY_MODE: DisplayMode | None = Field(None, description=_MODE.format(what="public offer"))
    RECURRENT_PAYMENTS_DISPLAY_MODE: DisplayMode | None = Field(
        None, description=_MODE.format(what="recurring-payments terms document")
    )
    RECURRENT_PAYMENTS_TEXT: str | None = Field(
        None,
        description="The recurring-payments terms shown when neither the language nor the default "
        "language has a stored document "
        "(HTML as the bot shows it, one text for every language).",
    )
    CABINET_REQUIRE_LEGAL_CONSENT: bool = Field(
        False,
        description="A new cabinet account must accept the enabled public offer and privacy policy "
        "(`GET /cabinet/info/legal-consent`).",
    )
    CABINET_LEGAL_CONSENT_PRECHECKED: bool = Field(
        False, description="The cabinet shows the legal-consent boxes already ticked."
    )
    AVAILABLE_LANGUAGES: str = Field(
        "ru,en", description="The languages a cabinet user may choose, comma-separated codes."
    )
    MINIAPP_SERVICE_NAME: dict[str, str] = Field(
        default_factory=dict,
        description='The service\'s name per language, JSON (`{"ru": "…", "en": "…"}`); without one '
        "for the language, the default language's, else `VPN Service`.",
    )
    MINIAPP_SERVICE_DESCRIPTION: dict[str, str] = Field(
        default_factory=dict, description="The service's description per language, JSON (as the name)."
    )
    SERVICE_SUPPORT_EMAIL: str | None = Field(None, description="The support e-mail the cabinet shows.")
    SERVICE_SUPPORT_MESSENGER: str | None = Field(
        None, description="The support messenger contact the cabinet shows."
    )
    SERVICE_WEBSITE_URL: str | None = Field(None, description="The service's website the cabinet shows.")

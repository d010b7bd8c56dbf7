"""Settings of the cabinet_email plugin (environment variables, like core's)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import NoDecode

from subsvc.settings import PluginSettings

DISPOSABLE_DOMAINS = (
    "10minutemail.com",
    "guerrillamail.com",
    "mailinator.com",
    "sharklasers.com",
    "temp-mail.org",
    "tempmail.com",
    "throwawaymail.com",
    "trashmail.com",
    "yopmail.com",
)


class CabinetEmailSettings(PluginSettings):
    """SMTP, the cabinet's address for links, token lifetimes and password hashing."""

    SMTP_HOST: str | None = Field(None, description="SMTP server; unset = e-mail is not configured (503).")
    SMTP_PORT: int = Field(587, ge=1, le=65535, description="SMTP server port.")
    SMTP_USER: str | None = Field(None, description="SMTP login; unset = no AUTH.")
    SMTP_PASSWORD: str | None = Field(None, description="SMTP password.")
    SMTP_USE_TLS: bool = Field(True, description="Upgrade the connection with STARTTLS.")
    SMTP_USE_SSL: bool = Field(False, description="Connect with implicit TLS (port 465); wins over STARTTLS.")
    SMTP_TIMEOUT: float = Field(10.0, gt=0, description="Seconds to wait for the SMTP server per step.")
    SMTP_FROM_EMAIL: str | None = Field(None, description="Sender address; unset = e-mail is not configured.")
    SMTP_FROM_NAME: str = Field("Subscription Service", description="Sender display name.")
    CABINET_URL: str | None = Field(
        None,
        description="Public address of the cabinet (links `{CABINET_URL}/verify-email?token=…`, "
        "`/reset-password?token=…`); unset = links cannot be mailed (503).",
    )
    CABINET_EMAIL_VERIFICATION_ENABLED: bool = Field(
        True, description="Require a mailed link before an e-mail counts as verified and can log in."
    )
    CABINET_EMAIL_VERIFICATION_EXPIRE_HOURS: int = Field(
        24, ge=1, description="Lifetime of an e-mail verification link."
    )
    CABINET_PASSWORD_RESET_EXPIRE_HOURS: int = Field(
        1, ge=1, description="Lifetime of a password reset link."
    )
    CABINET_EMAIL_CHANGE_CODE_EXPIRE_MINUTES: int = Field(
        15, ge=1, description="Lifetime of the 6-digit code that confirms an e-mail change."
    )
    CABINET_EMAIL_CHANGE_MAX_ATTEMPTS: int = Field(
        5, ge=1, description="Wrong codes after which a pending e-mail change is dropped."
    )
    CABINET_EMAIL_DISPOSABLE_DOMAINS: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(DISPOSABLE_DOMAINS),
        description="Comma list of e-mail domains refused as disposable (subdomains too).",
    )
    PUBLIC_API_URL: str | None = Field(
        None,
        description="Public address of this API, for the unsubscribe link of marketing mail "
        "(`{PUBLIC_API_URL}/cabinet/public/unsubscribe?token=…`, also its `List-Unsubscribe` header); "
        "unset = marketing mail is not sent.",
    )
    CABINET_UNSUBSCRIBE_LINK_DAYS: int = Field(
        60, ge=1, description="How long the unsubscribe link of a marketing e-mail works."
    )
    CABINET_PASSWORD_ARGON2_TIME_COST: int = Field(3, ge=1, description="Argon2id iterations.")
    CABINET_PASSWORD_ARGON2_MEMORY_KIB: int = Field(
        65536, ge=8, description="Argon2id memory per hash, in KiB."
    )
    CABINET_PASSWORD_ARGON2_PARALLELISM: int = Field(4, ge=1, description="Argon2id lanes.")

    @field_validator("CABINET_EMAIL_DISPOSABLE_DOMAINS", mode="before")
    @classmethod
    def _split_commas(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip().lower() for part in value.split(",") if part.strip()]
        return value

    @property
    def smtp_configured(self) -> bool:
        return bool(self.SMTP_HOST and self.SMTP_FROM_EMAIL)

    @property
    def links_configured(self) -> bool:
        """Mail with links needs SMTP and the cabinet's address."""
        return self.smtp_configured and bool(self.CABINET_URL)

"""Settings of the Stars provider (read from the environment like core's). The provider is
configured when ``STARS_ENABLED`` is true, core's ``BOT_TOKEN`` is set and
``STARS_WEBHOOK_SECRET`` is set: without the secret no paid update could be trusted, so no
invoice is made."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field, field_validator
from starlette.applications import Starlette
from subsvc_payments.api import ProviderSettings

from subsvc.services import services


class StarsSettings(ProviderSettings):
    """Whether Stars are sold, at which rate, and how the bot's paid updates are authenticated."""

    STARS_ENABLED: bool = Field(
        False,
        description=(
            "Offer top-ups in Stars (XTR). Configured only with `BOT_TOKEN` and "
            "`STARS_WEBHOOK_SECRET` set too."
        ),
    )
    STARS_RATE_RUB: Decimal = Field(
        Decimal("1.3"),
        ge=Decimal("0.01"),
        le=Decimal("100000"),
        decimal_places=4,
        description=(
            "Rubles one star is worth (a decimal, at least 0.01): an invoice asks "
            "`max(1, round(rubles / rate))` stars, rounded half up."
        ),
    )
    STARS_MIN_AMOUNT_KOPEKS: int = Field(
        100, ge=100, le=2_000_000_000, description="Smallest top-up in Stars, in kopeks."
    )
    STARS_MAX_AMOUNT_KOPEKS: int = Field(
        1_000_000,
        ge=100,
        le=2_000_000_000,
        description=(
            "Largest top-up in Stars, in kopeks; keep its stars within the messenger's limit for one invoice."
        ),
    )
    STARS_INVOICE_TITLE: str = Field(
        "Пополнение баланса",
        min_length=1,
        max_length=32,
        description="Title of the invoice and of its one price line (1-32 characters).",
    )
    STARS_WEBHOOK_PATH: str | None = Field(
        None,
        pattern="^/",
        description=(
            "Path of the endpoint receiving the bot's paid updates, instead of "
            "`/webhooks/payments/messenger_stars`."
        ),
    )
    STARS_WEBHOOK_SECRET: str | None = Field(
        None,
        pattern="^[A-Za-z0-9_-]{1,256}$",
        description=(
            "The updates' header `X-Telegram-Bot-Api-Secret-Token` must equal it (the Bot API's "
            "`secret_token` of `setWebhook`: 1-256 of `A-Z a-z 0-9 _ -`)."
        ),
    )

    @field_validator("STARS_WEBHOOK_SECRET", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value


def configured(app: Starlette) -> StarsSettings | None:
    """The settings when Stars are enabled, the bot has a token and the secret is set."""
    settings = StarsSettings.of(app)
    if settings.STARS_ENABLED and settings.STARS_WEBHOOK_SECRET and services(app).settings.BOT_TOKEN:
        return settings
    return None

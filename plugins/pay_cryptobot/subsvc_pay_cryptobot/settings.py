"""Settings of the CryptoBot provider plugin (read from the environment like core's): off
until ``CRYPTOBOT_API_TOKEN`` is set."""

from __future__ import annotations

import re

from pydantic import Field, field_validator
from subsvc_payments.api import ProviderSettings

from subsvc.settings import CommaList, _split_commas

MAINNET_URL = "https://pay.crypt.bot/api"
TESTNET_URL = "https://testnet-pay.crypt.bot/api"
ASSET = re.compile(r"^[A-Z0-9]{2,10}$")


class CryptoBotSettings(ProviderSettings):
    """The Crypto Pay app's token and API, the invoices' terms, the notifications' window."""

    CRYPTOBOT_API_TOKEN: str | None = Field(
        None,
        description=(
            "API token of the Crypto Pay app (@CryptoBot → Crypto Pay → My Apps), sent as "
            "`Crypto-Pay-API-Token`; its SHA-256 keys the notifications' signature. Unset: CryptoBot "
            "is off (no payment method, notifications answered 503)."
        ),
    )
    CRYPTOBOT_API_URL: str = Field(
        MAINNET_URL,
        pattern=r"^https?://",
        description=f"Base URL of the Crypto Pay API (calls: `<url>/<method>`); testnet `{TESTNET_URL}`.",
    )
    CRYPTOBOT_TIMEOUT_SECONDS: float = Field(
        10.0, gt=0, le=120, description="Seconds to wait for a Crypto Pay answer before the call fails (502)."
    )
    CRYPTOBOT_WEBHOOK_PATH: str | None = Field(
        None,
        pattern="^/",
        description=(
            "Path of the notification endpoint (the webhook URL given to Crypto Pay); unset: "
            "`/webhooks/payments/cryptobot`."
        ),
    )
    CRYPTOBOT_ACCEPTED_ASSETS: CommaList = Field(
        default_factory=list,
        description=(
            "Comma list of the crypto assets an invoice may be paid in (e.g. `USDT,TON,BTC`); "
            "empty: every asset Crypto Pay accepts."
        ),
    )
    CRYPTOBOT_INVOICE_EXPIRES_SECONDS: int = Field(
        3600,
        ge=1,
        le=2_678_400,
        description="Seconds an invoice can be paid (its `expires_in`); the payment expires with it.",
    )
    CRYPTOBOT_NOTIFICATION_MAX_AGE_SECONDS: int = Field(
        600,
        ge=10,
        le=86_400,
        description=(
            "A notification whose signed `request_date` is further than this from now is refused "
            "(401, a replay); the polling job still learns of the payment."
        ),
    )
    CRYPTOBOT_MIN_AMOUNT_KOPEKS: int = Field(
        10_000, ge=1_000, le=2_000_000_000, description="Smallest top-up through CryptoBot, in kopeks."
    )
    CRYPTOBOT_MAX_AMOUNT_KOPEKS: int = Field(
        10_000_000, ge=1_000, le=2_000_000_000, description="Largest top-up through CryptoBot, in kopeks."
    )

    _lists = field_validator("CRYPTOBOT_ACCEPTED_ASSETS", mode="before")(_split_commas)

    @field_validator("CRYPTOBOT_API_TOKEN")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    @field_validator("CRYPTOBOT_ACCEPTED_ASSETS")
    @classmethod
    def _assets(cls, value: list[str]) -> list[str]:
        codes = [code.upper() for code in value]
        wrong = [code for code in codes if not ASSET.match(code)]
        if wrong:
            raise ValueError(f"not asset codes: {', '.join(wrong)}")
        return list(dict.fromkeys(codes))

    @property
    def configured(self) -> bool:
        """Whether CryptoBot is on (a token is set)."""
        return self.CRYPTOBOT_API_TOKEN is not None

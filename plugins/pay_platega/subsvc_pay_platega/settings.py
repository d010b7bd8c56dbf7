"""Settings of the Platega provider plugin (read from the environment like core's): off
until both merchant credentials are set."""

from __future__ import annotations

from pydantic import Field, field_validator
from subsvc_payments.api import ProviderSettings

from subsvc.settings import CommaIntList, _split_commas

METHOD_NAMES = {
    2: "СБП (QR-код)",
    11: "Банковская карта (RUB)",
    12: "Международная карта",
    13: "Криптовалюта",
}
"""Platega's method codes this plugin offers, with the names the cabinet shows."""


class PlategaSettings(ProviderSettings):
    """Platega's merchant credentials, its API, the methods offered and their limits."""

    PLATEGA_MERCHANT_ID: str | None = Field(
        None,
        description="Merchant id from Platega's cabinet: sent as `X-MerchantId` on every call and "
        "expected on its callbacks. Unset (or without `PLATEGA_SECRET`): Platega is off.",
    )
    PLATEGA_SECRET: str | None = Field(
        None,
        description="API secret from Platega's cabinet: sent as `X-Secret` on every call and "
        "expected on its callbacks. Unset (or without `PLATEGA_MERCHANT_ID`): Platega is off.",
    )
    PLATEGA_API_URL: str = Field(
        "https://app.platega.io",
        description="Base URL of Platega's API (`/transaction/process`, `/transaction/{id}`).",
    )
    PLATEGA_TIMEOUT_SECONDS: float = Field(
        15.0, gt=0, le=120, description="Seconds to wait for a Platega answer before the call fails (502)."
    )
    PLATEGA_WEBHOOK_PATH: str | None = Field(
        None,
        pattern="^/",
        description="Path Platega's callbacks are received at; unset: `/webhooks/payments/platega`.",
    )
    PLATEGA_METHODS: CommaIntList = Field(
        default_factory=lambda: [2, 11],
        min_length=1,
        description="Comma list of the Platega method codes offered (the cabinet's options): 2 SBP "
        "QR, 11 Russian cards, 12 international cards, 13 crypto.",
    )
    PLATEGA_MIN_AMOUNT_KOPEKS: int = Field(
        10_000, ge=100, le=2_000_000_000, description="Smallest top-up through Platega, in kopeks."
    )
    PLATEGA_MAX_AMOUNT_KOPEKS: int = Field(
        10_000_000, ge=100, le=2_000_000_000, description="Largest top-up through Platega, in kopeks."
    )
    PLATEGA_CURRENCY: str = Field(
        "RUB",
        pattern="^[A-Z]{3}$",
        description="Currency of the Platega account: payments in another currency are refused "
        "(502) rather than asked in it.",
    )

    _lists = field_validator("PLATEGA_METHODS", mode="before")(_split_commas)

    @field_validator("PLATEGA_METHODS")
    @classmethod
    def _known_methods(cls, codes: list[int]) -> list[int]:
        unknown = [code for code in codes if code not in METHOD_NAMES]
        if unknown:
            raise ValueError(f"unknown Platega method codes {unknown}: known are {sorted(METHOD_NAMES)}")
        return list(dict.fromkeys(codes))

    @property
    def configured(self) -> bool:
        """Both merchant credentials are set."""
        return bool((self.PLATEGA_MERCHANT_ID or "").strip() and (self.PLATEGA_SECRET or "").strip())

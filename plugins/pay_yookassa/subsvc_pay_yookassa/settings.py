"""Settings of the YooKassa provider plugin: disabled until both the shop id and the secret key
are set."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, IPvAnyNetwork, field_validator
from pydantic_settings import NoDecode
from subsvc_payments.api import ProviderSettings

from subsvc.settings import _split_commas

PUBLISHED_SOURCES = (
    "185.71.76.0/27",
    "185.71.77.0/27",
    "77.75.153.0/25",
    "77.75.154.128/25",
    "77.75.156.11",
    "77.75.156.35",
    "2a02:5180::/32",
)
"""The addresses YooKassa sends its notifications from, as it publishes them."""

PaymentMode = Literal[
    "full_prepayment",
    "partial_prepayment",
    "advance",
    "full_payment",
    "partial_payment",
    "credit",
    "credit_payment",
]


class YookassaSettings(ProviderSettings):
    """The shop's credentials, the API, the notifications' sources, limits and the receipt."""

    YOOKASSA_SHOP_ID: str | None = Field(
        None, description="The shop's id (`shopId`); with the secret key it enables YooKassa."
    )
    YOOKASSA_SECRET_KEY: str | None = Field(
        None, description="The shop's secret API key (HTTP Basic auth with the shop id)."
    )
    YOOKASSA_API_URL: str = Field("https://api.yookassa.ru/v3", description="Base URL of YooKassa's API v3.")
    YOOKASSA_TIMEOUT_SECONDS: float = Field(
        10.0,
        gt=0,
        le=120,
        description="Seconds to wait for an answer of YooKassa's API before the call fails.",
    )
    YOOKASSA_WEBHOOK_PATH: str | None = Field(
        None,
        pattern="^/",
        description="Path of the notification endpoint (default `/webhooks/payments/yookassa`).",
    )
    YOOKASSA_MIN_AMOUNT_KOPEKS: int = Field(
        5_000, ge=100, le=2_000_000_000, description="Smallest top-up through YooKassa (kopeks)."
    )
    YOOKASSA_MAX_AMOUNT_KOPEKS: int = Field(
        1_000_000, ge=100, le=2_000_000_000, description="Largest top-up through YooKassa (kopeks)."
    )
    YOOKASSA_SBP_ENABLED: bool = Field(
        False, description="Offer the option `sbp` (the faster payments system) beside `card`."
    )
    YOOKASSA_DEFAULT_RECEIPT_EMAIL: str | None = Field(
        None,
        description="E-mail the fiscal receipt goes to when the user has no verified e-mail; with neither, "
        "the payment is asked without a receipt.",
    )
    YOOKASSA_VAT_CODE: int = Field(1, ge=1, le=12, description="The receipt item's `vat_code` (1: no VAT).")
    YOOKASSA_PAYMENT_MODE: PaymentMode = Field(
        "full_payment", description="The receipt item's `payment_mode` (settlement method)."
    )
    YOOKASSA_PAYMENT_SUBJECT: str = Field(
        "service",
        pattern="^[a-z_]{1,64}$",
        description="The receipt item's `payment_subject` (what is paid for: `service`, `payment`, ...).",
    )
    YOOKASSA_ALLOWED_SOURCES: Annotated[list[IPvAnyNetwork], NoDecode] = Field(
        default_factory=lambda: list(PUBLISHED_SOURCES),
        validate_default=True,
        description="Comma list of the IPs or CIDRs notifications are taken from (default: YooKassa's "
        "published ranges); the sender is the client address after `TRUSTED_PROXIES`.",
    )
    YOOKASSA_TEST_MODE: bool = Field(
        False,
        description="Credit payments YooKassa marks `test: true` (a test shop); otherwise they are refused.",
    )
    YOOKASSA_RECURRENT_ENABLED: bool = Field(
        False,
        description="Ask YooKassa to save the card of a card payment; the cabinet lists the saved cards.",
    )

    _lists = field_validator("YOOKASSA_ALLOWED_SOURCES", mode="before")(_split_commas)

    @property
    def configured(self) -> bool:
        """Both credentials are set."""
        return bool(self.YOOKASSA_SHOP_ID and self.YOOKASSA_SECRET_KEY)

    @property
    def credentials(self) -> tuple[str, str]:
        """HTTP Basic auth: the shop id and the secret key."""
        return self.YOOKASSA_SHOP_ID or "", self.YOOKASSA_SECRET_KEY or ""

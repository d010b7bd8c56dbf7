"""Settings of the pay_apple_iap plugin (read from the environment like core's)."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from pydantic import Field, field_validator

from subsvc.settings import PluginSettings

PRODUCTION_URL = "https://api.storekit.itunes.apple.com"
SANDBOX_URL = "https://api.storekit-sandbox.itunes.apple.com"


def _pem(value: str | None) -> str | None:
    """A PEM given on one line (``\\n`` escaped, as environment files often hold it)."""
    return value.replace("\\n", "\n").strip() if value else None


class AppleIapSettings(PluginSettings):
    """The in-app purchase key of App Store Connect (Apple IAP is configured once the issuer
    id, key id, private key and bundle id are all set), the products and what they credit."""

    APPLE_IAP_ISSUER_ID: str | None = Field(
        None,
        description="Issuer id of the App Store Connect API keys (Users and Access → Integrations). "
        "Apple IAP is configured once `APPLE_IAP_ISSUER_ID`, `APPLE_IAP_KEY_ID`, "
        "`APPLE_IAP_PRIVATE_KEY` and `APPLE_IAP_BUNDLE_ID` are all set.",
    )
    APPLE_IAP_KEY_ID: str | None = Field(None, description="Id of the in-app purchase key (the JWT's `kid`).")
    APPLE_IAP_PRIVATE_KEY: str | None = Field(
        None,
        description="The in-app purchase key (`SubscriptionKey_<key id>.p8`): its PEM text, newlines "
        "as is or as `\\n`. An EC P-256 key, else start-up stops.",
    )
    APPLE_IAP_BUNDLE_ID: str | None = Field(
        None, description="The app's bundle id: transactions and notifications of another app are refused."
    )
    APPLE_IAP_PRODUCTS: dict[str, int] = Field(
        default_factory=dict,
        description='What each consumable product credits, in kopeks (JSON: `{"com.example.topup.100": '
        "10000}`); a purchase of a product not listed is refused (400).",
    )
    APPLE_IAP_API_URL: str = Field(
        PRODUCTION_URL,
        description=f"The App Store Server API; `{SANDBOX_URL}` for sandbox and TestFlight purchases.",
    )
    APPLE_IAP_ROOT_CERTIFICATE: str | None = Field(
        None,
        description="PEM of the root certificate Apple's signed data must chain up to; unset: Apple Root "
        "CA - G3 (built in).",
    )
    APPLE_IAP_ACCOUNT_TOKEN_SECRET: str | None = Field(
        None,
        description="Secret the users' `appAccountToken`s are derived from (keep it: changing it changes "
        "every token); unset: derived from `APPLE_IAP_PRIVATE_KEY`.",
    )
    APPLE_IAP_TIMEOUT_SECONDS: float = Field(
        10.0, gt=0, le=120, description="Seconds to wait for an answer of the App Store Server API."
    )
    APPLE_IAP_WEBHOOK_PATH: str | None = Field(
        None,
        pattern="^/",
        description="Path of the App Store Server Notifications endpoint; unset: "
        "`/webhooks/payments/apple_iap`.",
    )
    APPLE_IAP_NOTIFICATION_MAX_AGE_SECONDS: int = Field(
        4 * 86_400,
        ge=60,
        le=30 * 86_400,
        description="A notification signed longer ago than this is refused (401); Apple retries for "
        "three days, and a repeat within the window changes nothing.",
    )

    @field_validator("APPLE_IAP_PRIVATE_KEY", "APPLE_IAP_ROOT_CERTIFICATE", mode="before")
    @classmethod
    def _unescaped(cls, value: str | None) -> str | None:
        return _pem(value)

    @field_validator("APPLE_IAP_PRIVATE_KEY")
    @classmethod
    def _es256_key(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                key = load_pem_private_key(value.encode(), None)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"not a PEM private key without a passphrase ({exc})") from None
            if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
                raise ValueError("not an EC P-256 key (Apple's in-app purchase keys are)")
        return value

    @field_validator("APPLE_IAP_ROOT_CERTIFICATE")
    @classmethod
    def _certificate(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                x509.load_pem_x509_certificate(value.encode())
            except ValueError as exc:
                raise ValueError(f"not a PEM certificate ({exc})") from None
        return value

    @field_validator("APPLE_IAP_PRODUCTS")
    @classmethod
    def _positive(cls, value: dict[str, int]) -> dict[str, int]:
        wrong = [product for product, kopeks in value.items() if not 0 < kopeks <= 10**12]
        if wrong:
            raise ValueError(f"a product credits a positive number of kopeks: {', '.join(wrong)}")
        return value

    @property
    def configured(self) -> bool:
        """Whether the key and the bundle id are all set."""
        return bool(
            self.APPLE_IAP_ISSUER_ID
            and self.APPLE_IAP_KEY_ID
            and self.APPLE_IAP_PRIVATE_KEY
            and self.APPLE_IAP_BUNDLE_ID
        )

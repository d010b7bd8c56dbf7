"""Settings of the pay_overpay plugin (read from the environment like core's)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from subsvc.settings import PluginSettings

DEFAULT_PATH = Path("data/overpay/client.p12")


class OverpaySettings(PluginSettings):
    """The merchant's credentials (Overpay is configured once all three are set) and where
    its client certificate is written."""

    OVERPAY_USERNAME: str | None = Field(
        None,
        description="Merchant login of Overpay's API (HTTP Basic); Overpay is configured once "
        "`OVERPAY_USERNAME`, `OVERPAY_PASSWORD` and `OVERPAY_PROJECT_ID` are all set.",
    )
    OVERPAY_PASSWORD: str | None = Field(None, description="Merchant password of Overpay's API (HTTP Basic).")
    OVERPAY_PROJECT_ID: str | None = Field(None, description="The merchant's project id at Overpay.")
    OVERPAY_P12_PATH: str | None = Field(
        None,
        description="Where the uploaded client certificate is written (PKCS#12) for the Overpay client; "
        "unset: `data/overpay/client.p12` under the working directory. Set, the path is fixed by "
        "settings (`env_locked_path`).",
    )
    OVERPAY_P12_PASSPHRASE: str | None = Field(
        None,
        description="Passphrase of the written PKCS#12 file. Set, it is fixed by settings "
        "(`env_locked_passphrase`): an upload is re-encrypted with it; unset, the file keeps the "
        "passphrase given with the upload.",
    )

    @property
    def configured(self) -> bool:
        """Whether the merchant's credentials are all set."""
        return bool(self.OVERPAY_USERNAME and self.OVERPAY_PASSWORD and self.OVERPAY_PROJECT_ID)

    @property
    def certificate_path(self) -> Path:
        """The absolute path the certificate is written to."""
        return Path(self.OVERPAY_P12_PATH or DEFAULT_PATH).absolute()

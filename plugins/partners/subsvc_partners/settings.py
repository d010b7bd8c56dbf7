"""Settings of the partners plugin, read from the environment: the defaults of the values
administrators change at runtime (stored in ``partner_settings``, see :mod:`.config`), and the
thresholds of the withdrawal risk score."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class PartnersSettings(PluginSettings):
    """Defaults (a stored value wins) and fixed thresholds."""

    REFERRAL_WITHDRAWAL_ENABLED: bool = Field(
        False, description="Users may ask to withdraw referral earnings."
    )
    REFERRAL_WITHDRAWAL_MIN_AMOUNT_KOPEKS: int = Field(
        100000, ge=0, le=100_000_000, description="The smallest withdrawal, in kopeks."
    )
    REFERRAL_WITHDRAWAL_COOLDOWN_DAYS: int = Field(
        30, ge=0, le=365, description="Days after a completed withdrawal before the next request."
    )
    REFERRAL_WITHDRAWAL_REQUISITES_TEXT: str = Field(
        "", max_length=2000, description="What the user is told to write as payment details."
    )
    REFERRAL_WITHDRAWAL_ONLY_REFERRAL_BALANCE: bool = Field(
        True, description="Only referral earnings may be withdrawn (else the whole balance)."
    )
    PARTNER_SECTION_VISIBLE: bool = Field(True, description="Show the partner section in the cabinet.")
    REFERRAL_WITHDRAWAL_SUSPICIOUS_MIN_DEPOSIT_KOPEKS: int = Field(
        50000, ge=0, description="Risk score: a referee's deposits over 30 days above this are suspicious."
    )
    REFERRAL_WITHDRAWAL_SUSPICIOUS_MAX_DEPOSITS_PER_MONTH: int = Field(
        10, ge=0, description="Risk score: more deposits by one referee in 30 days are suspicious."
    )
    REFERRAL_WITHDRAWAL_SUSPICIOUS_NO_PURCHASES_RATIO: float = Field(
        2.0, gt=0, description="Risk score: own deposits above spending times this are suspicious."
    )

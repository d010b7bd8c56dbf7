"""Settings of the referrals plugin: the defaults of the referral programme's configuration
(read from the environment). Once an administrator changes a value it is stored and wins."""

from __future__ import annotations

from pydantic import Field, field_validator

from subsvc.settings import PluginSettings
from subsvc_referrals.tiers import parse_tiers


class ReferralSettings(PluginSettings):
    """Defaults of every value of :class:`subsvc_referrals.api.ReferralConfig`, and the links."""

    REFERRAL_PROGRAM_ENABLED: bool = Field(True, description="Pay referral commissions and bonuses.")
    REFERRAL_MINIMUM_TOPUP_KOPEKS: int = Field(
        10000, ge=0, description="A referee's first top-up of at least this much qualifies for the bonuses."
    )
    REFERRAL_FIRST_TOPUP_BONUS_KOPEKS: int = Field(
        10000, ge=0, description="Bonus to the referee for the first qualifying top-up."
    )
    REFERRAL_INVITER_BONUS_KOPEKS: int = Field(
        10000, ge=0, description="Bonus to the referrer for the referee's first qualifying top-up."
    )
    REFERRAL_COMMISSION_PERCENT: int = Field(
        25, ge=0, le=100, description="The referrer's share of every top-up of a referee, in percent."
    )
    REFERRAL_FIRST_PAYMENT_COMMISSION_PERCENT: int | None = Field(
        None, ge=0, le=100, description="The share of a pair's first paid top-up (empty: the base percent)."
    )
    REFERRAL_RECURRING_COMMISSION_TIERS: str = Field(
        "",
        description='Tiers by the referrer\'s paying referees, "threshold:percent,..." '
        "(e.g. `0:10,10:15,50:20`); "
        "they replace the base percent after a pair's first payment.",
    )
    REFERRAL_MAX_COMMISSION_PAYMENTS: int = Field(
        0, ge=0, description="Commissions per referrer and referee at most (0 = unlimited)."
    )
    REFERRAL_NOTIFICATIONS_ENABLED: bool = Field(
        True, description="Tell both sides in the messenger when a commission or bonus is credited."
    )
    REFERRAL_CONFIG_CACHE_SECONDS: float = Field(
        60.0,
        ge=0,
        description="How long an instance trusts the configuration from memory; every change drops it "
        "at once on every instance (0 = read it each time).",
    )
    CABINET_URL: str | None = Field(None, description="The cabinet's public URL (referral links `?ref=`).")
    BOT_USERNAME: str | None = Field(
        None, description="The bot's username (links `https://t.me/<bot>?start=`)."
    )

    @field_validator("REFERRAL_RECURRING_COMMISSION_TIERS")
    @classmethod
    def _tiers(cls, value: str) -> str:
        parse_tiers(value)
        return value

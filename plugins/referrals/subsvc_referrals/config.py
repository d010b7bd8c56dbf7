"""The referral configuration as the other plugins see it: the environment's defaults with the
stored values over them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from subsvc_referrals.settings import ReferralSettings
from subsvc_referrals.tiers import parse_tiers


@dataclass(frozen=True)
class ReferralConfig:
    """Everything that decides what the referral programme pays, as it is now."""

    enabled: bool
    minimum_topup_kopeks: int
    first_topup_bonus_kopeks: int
    inviter_bonus_kopeks: int
    commission_percent: int
    first_payment_commission_percent: int | None
    recurring_commission_tiers: str
    max_commission_payments: int
    notifications_enabled: bool

    @property
    def tiers(self) -> tuple[tuple[int, int], ...]:
        """The recurring tiers, sorted (a malformed stored value is never written)."""
        return parse_tiers(self.recurring_commission_tiers)


FIELDS = tuple(f.name for f in fields(ReferralConfig))


def defaults(settings: ReferralSettings) -> dict[str, Any]:
    """The configuration from the environment alone."""
    return {
        "enabled": settings.REFERRAL_PROGRAM_ENABLED,
        "minimum_topup_kopeks": settings.REFERRAL_MINIMUM_TOPUP_KOPEKS,
        "first_topup_bonus_kopeks": settings.REFERRAL_FIRST_TOPUP_BONUS_KOPEKS,
        "inviter_bonus_kopeks": settings.REFERRAL_INVITER_BONUS_KOPEKS,
        "commission_percent": settings.REFERRAL_COMMISSION_PERCENT,
        "first_payment_commission_percent": settings.REFERRAL_FIRST_PAYMENT_COMMISSION_PERCENT,
        "recurring_commission_tiers": settings.REFERRAL_RECURRING_COMMISSION_TIERS,
        "max_commission_payments": settings.REFERRAL_MAX_COMMISSION_PAYMENTS,
        "notifications_enabled": settings.REFERRAL_NOTIFICATIONS_ENABLED,
    }


def combine(settings: ReferralSettings, stored: Mapping[str, Any]) -> ReferralConfig:
    """The defaults with every stored value over them (unknown keys are ignored)."""
    values = defaults(settings)
    values.update({key: value for key, value in stored.items() if key in FIELDS})
    return ReferralConfig(**values)


def validate_change(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` checked as a change of the configuration; :class:`ValueError` names the bad one."""
    checked: dict[str, Any] = {}
    for key, value in values.items():
        if key not in FIELDS:
            raise ValueError(f"unknown referral setting {key!r}")
        if key in ("enabled", "notifications_enabled"):
            if not isinstance(value, bool):
                raise ValueError(f"{key} must be a boolean")
        elif key == "recurring_commission_tiers":
            if not isinstance(value, str):
                raise ValueError(f"{key} must be a string")
            parse_tiers(value)
        elif key == "first_payment_commission_percent" and value is None:
            pass
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{key} must be a non-negative integer")
        elif key.endswith("percent") and value > 100:
            raise ValueError(f"{key} must be at most 100")
        checked[key] = value
    return checked

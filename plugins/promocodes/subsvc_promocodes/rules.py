"""The rules a promo code's fields must keep together, checked on create and on update (on
the code as it would be after the change). Each broken rule is a :class:`PromoCodeRuleError`
carrying the reference's text (status 400)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from subsvc_promocodes.models import PromoCodeType

EMPTY_CODE = "Code must not be empty"
BALANCE_NOT_POSITIVE = "Balance bonus must be positive for balance promo codes"
BALANCE_NEGATIVE = "Balance bonus must not be negative"
NOTHING_GRANTED = "Bonus set must grant at least one of: balance, subscription days, traffic"
TRAFFIC_NEGATIVE = "Traffic must not be negative"
DAYS_NOT_POSITIVE = "Subscription days must be positive for this promo code type"
DAYS_NEGATIVE = "Subscription days must not be negative"
DISCOUNT_PERCENT = "Discount percent must be between 1 and 100"
DISCOUNT_HOURS = "Discount validity hours cannot be negative"
GROUP_REQUIRED = "Promo group is required for promo group promo codes"
VALIDITY_ORDER = "valid_from cannot be greater than valid_until"
MAX_USES_BELOW_CURRENT = "max_uses cannot be less than current uses"
DUPLICATE_CODE = "Promo code with this code already exists"
GROUP_NOT_FOUND = "Promo group not found"
TARIFF_NOT_FOUND = "Tariff not found"
CREATOR_NOT_FOUND = "created_by names no user"

DAY_TYPES = (PromoCodeType.SUBSCRIPTION_DAYS, PromoCodeType.TRIAL_SUBSCRIPTION)


class PromoCodeRuleError(ValueError):
    """A code the rules refuse; the message is the answer's ``detail`` (400)."""


@dataclass(frozen=True)
class Draft:
    """A code's fields as they would be stored."""

    code: str
    type: PromoCodeType
    balance_bonus_kopeks: int
    subscription_days: int
    traffic_gb: int
    valid_from: datetime | None
    valid_until: datetime | None
    promo_group_id: int | None


def draft_of(source: Any, **overrides: Any) -> Draft:
    """The draft of a stored code or a request (any object with the fields), with overrides."""
    values = {name: getattr(source, name) for name in Draft.__dataclass_fields__}
    values.update(overrides)
    values["type"] = PromoCodeType(values["type"])
    return Draft(**values)


def normalise_code(text: str) -> str:
    """Codes are stored trimmed and upper-cased; activation looks them up the same way."""
    return text.strip().upper()


def check(draft: Draft) -> None:
    """Raise :class:`PromoCodeRuleError` for the first rule the draft breaks."""
    if not draft.code:
        raise PromoCodeRuleError(EMPTY_CODE)
    kind, balance, days, traffic = (
        draft.type,
        draft.balance_bonus_kopeks,
        draft.subscription_days,
        draft.traffic_gb,
    )
    if kind == PromoCodeType.DISCOUNT:
        if not 1 <= balance <= 100:
            raise PromoCodeRuleError(DISCOUNT_PERCENT)
        if days < 0:
            raise PromoCodeRuleError(DISCOUNT_HOURS)
    else:
        if kind == PromoCodeType.BALANCE and balance <= 0:
            raise PromoCodeRuleError(BALANCE_NOT_POSITIVE)
        if balance < 0:
            raise PromoCodeRuleError(BALANCE_NEGATIVE)
        if kind in DAY_TYPES and days <= 0:
            raise PromoCodeRuleError(DAYS_NOT_POSITIVE)
        if days < 0:
            raise PromoCodeRuleError(DAYS_NEGATIVE)
    if traffic < 0:
        raise PromoCodeRuleError(TRAFFIC_NEGATIVE)
    if kind == PromoCodeType.BALANCE_AND_DAYS and balance <= 0 and days <= 0 and traffic <= 0:
        raise PromoCodeRuleError(NOTHING_GRANTED)
    if kind == PromoCodeType.PROMO_GROUP and draft.promo_group_id is None:
        raise PromoCodeRuleError(GROUP_REQUIRED)
    if draft.valid_from and draft.valid_until and draft.valid_from > draft.valid_until:
        raise PromoCodeRuleError(VALIDITY_ORDER)

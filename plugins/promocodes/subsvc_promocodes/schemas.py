"""The promo code wire contract: records, list and detail answers, create and update bodies,
the cabinet's activation answers, and the event payload.

Both areas answer with the same record (the cabinet admin's, a superset of the Web API's).
Numbers are bounded to what the columns hold (422 beyond); the rules between fields are the
service's (400, with the reference's texts).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from subsvc.api import INT32_MAX, INT64_MAX, Page
from subsvc_promocodes.models import CODE_LENGTH, UNLIMITED_USES, PromoCodeType


def as_utc(value: datetime | None) -> datetime | None:
    """A date-time without an offset is taken as UTC (the reference accepted those)."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


UTCInstant = Annotated[datetime, AfterValidator(as_utc)]
Int32 = Annotated[int, Field(ge=-INT32_MAX - 1, le=INT32_MAX)]
Kopeks = Annotated[int, Field(ge=-INT64_MAX - 1, le=INT64_MAX)]
MaxUses = Annotated[
    int, Field(ge=0, le=UNLIMITED_USES, description=f"0 = unlimited (stored as {UNLIMITED_USES}).")
]
RowId = Annotated[int, Field(ge=0, le=INT32_MAX)]
Code = Annotated[str, StringConstraints(min_length=1, max_length=CODE_LENGTH)]
WebCode = Annotated[str, StringConstraints(max_length=CODE_LENGTH)]

BALANCE_DESCRIPTION = "Balance bonus in kopeks; for `discount` codes the discount percent (1..100)."
DAYS_DESCRIPTION = (
    "Subscription days; for `discount` codes the discount's validity in hours (0: until the first purchase)."
)
TRAFFIC_DESCRIPTION = "Traffic in GB added to the subscription (`balance_and_days` codes)."
TARIFF_DESCRIPTION = (
    "Tariff the code is bound to: its days and traffic go only to a subscription of it (0 or null: none)."
)


class PromoCodeResponse(BaseModel):
    """A promo code with ``uses_left`` and ``is_valid`` computed at the time of the answer."""

    id: int
    code: str
    type: PromoCodeType
    balance_bonus_kopeks: int
    balance_bonus_rubles: float
    subscription_days: int
    traffic_gb: int = 0
    max_uses: int
    current_uses: int
    uses_left: int
    is_active: bool
    is_valid: bool
    first_purchase_only: bool
    valid_from: datetime
    valid_until: datetime | None = None
    promo_group_id: int | None = None
    tariff_id: int | None = None
    tariff_name: str | None = Field(default=None, description="The name of the tariff the code is bound to.")
    created_by: int | None = None
    created_at: datetime
    updated_at: datetime


PromoCodeListResponse = Page[PromoCodeResponse]


class PromoCodeRecentUse(BaseModel):
    """One of the latest activations of a code, with the user who made it."""

    id: int
    user_id: int
    user_username: str | None = None
    user_full_name: str | None = None
    user_messenger_id: int | None = None
    used_at: datetime


class PromoCodeDetailResponse(PromoCodeResponse):
    """The record with its usage: every activation, today's (UTC), the latest ones."""

    total_uses: int
    today_uses: int
    recent_uses: list[PromoCodeRecentUse] = Field(default_factory=list)


class PromoCodeCreateRequest(BaseModel):
    """A new code; ``code`` is trimmed and upper-cased."""

    code: Code
    type: PromoCodeType
    balance_bonus_kopeks: Kopeks = Field(default=0, description=BALANCE_DESCRIPTION)
    subscription_days: Int32 = Field(default=0, description=DAYS_DESCRIPTION)
    traffic_gb: Int32 = Field(default=0, description=TRAFFIC_DESCRIPTION)
    max_uses: MaxUses = 1
    valid_from: UTCInstant | None = Field(default=None, description="Default: now.")
    valid_until: UTCInstant | None = None
    is_active: bool = True
    first_purchase_only: bool = Field(
        default=False, description="Only users who never had a paid subscription may activate it."
    )
    promo_group_id: RowId | None = Field(
        default=None, description="Promo group the code moves its users into (required for `promo_group`)."
    )
    tariff_id: RowId | None = Field(default=None, description=TARIFF_DESCRIPTION)


class WebPromoCodeCreateRequest(PromoCodeCreateRequest):
    """The Web API's body: the creator is named in it (an API token is nobody)."""

    code: WebCode
    created_by: Int32 | None = Field(default=None, description="Internal id of the creating user; ≤ 0: none.")


class PromoCodeUpdateRequest(BaseModel):
    """Absent or null fields stay as they are, except ``valid_until``, ``promo_group_id`` and
    ``tariff_id``, which an explicit null (or ``promo_group_id: 0``, ``tariff_id: 0``) clears."""

    code: Code | None = None
    type: PromoCodeType | None = None
    balance_bonus_kopeks: Kopeks | None = Field(default=None, description=BALANCE_DESCRIPTION)
    subscription_days: Int32 | None = Field(default=None, description=DAYS_DESCRIPTION)
    traffic_gb: Int32 | None = Field(default=None, description=TRAFFIC_DESCRIPTION)
    max_uses: MaxUses | None = None
    valid_from: UTCInstant | None = None
    valid_until: UTCInstant | None = None
    is_active: bool | None = None
    first_purchase_only: bool | None = None
    promo_group_id: RowId | None = None
    tariff_id: RowId | None = Field(default=None, description=TARIFF_DESCRIPTION)


class WebPromoCodeUpdateRequest(PromoCodeUpdateRequest):
    code: WebCode | None = None


class PromocodeActivateRequest(BaseModel):
    code: Annotated[str, StringConstraints(min_length=1, max_length=CODE_LENGTH)] = Field(
        description="Promo code to activate"
    )
    subscription_id: int | None = Field(
        default=None,
        description="The user's subscription that gets the code's days and traffic (several "
        "subscriptions: multi-tariff); default: the current one, or for a tariff-bound code the "
        "user's subscription of that tariff.",
    )


class PromocodeActivateResponse(BaseModel):
    """A code applied: the balance before and after (rubles) and what it granted."""

    success: bool
    message: str
    balance_before: float = 0
    balance_after: float = 0
    bonus_description: str | None = None


class PromocodeDeactivateResponse(BaseModel):
    success: bool
    message: str
    deactivated_code: str | None = None
    discount_percent: int = 0


class DeactivateDiscountResponse(PromocodeDeactivateResponse):
    user_id: int


class PromoCodeActivated(BaseModel):
    """Event ``promocode.activated``: a user activated a code (published in its transaction)."""

    promocode_id: int
    code: str
    type: str
    user_id: int
    balance_bonus_kopeks: int
    subscription_days: int
    traffic_gb: int
    promo_group_id: int | None = None
    activated_at: datetime

"""The `/promo-groups` wire contract: the reference's field names and requiredness, with the
bounds the reference lacks (it silently clamps discounts to 0..100; here they are a 422)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from subsvc.api import Page

PERIOD_DISCOUNTS_DESCRIPTION = (
    "Словарь скидок по длительности подписки. Ключ — количество месяцев, значение — скидка в "
    "процентах. Например: {1: 10, 6: 20}."
)

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
Percent = Annotated[int, Field(ge=0, le=100)]
Period = Annotated[int, Field(ge=1, le=100_000)]
PeriodDiscounts = dict[Period, Percent]
Kopeks = Annotated[int, Field(ge=0, le=2**63 - 1)]
Priority = Annotated[int, Field(ge=0, le=2**31 - 1)]


class PromoGroupResponse(BaseModel):
    """A promo group with the number of users in it."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    priority: int = 0
    server_discount_percent: int
    traffic_discount_percent: int
    device_discount_percent: int
    period_discounts: dict[int, int] = Field(default_factory=dict)
    auto_assign_total_spent_kopeks: int | None = None
    apply_discounts_to_addons: bool
    is_default: bool
    members_count: int = 0
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @field_validator("period_discounts", mode="before")
    @classmethod
    def _readable_periods(cls, value: object) -> object:
        """Stored JSON has text keys; keep only entries that read as whole numbers."""
        if not isinstance(value, dict):
            return {}
        periods: dict[int, int] = {}
        for key, percent in value.items():
            try:
                periods[int(key)] = int(percent)
            except (TypeError, ValueError):
                continue
        return periods


PromoGroupListResponse = Page[PromoGroupResponse]


class PromoGroupCreateRequest(BaseModel):
    period_discounts: PeriodDiscounts | None = Field(
        default=None, description=PERIOD_DISCOUNTS_DESCRIPTION, examples=[{"1": 10, "6": 20}]
    )
    name: Name
    priority: Priority = Field(default=0, description="Higher first in lists; the user's primary group.")
    server_discount_percent: Percent = 0
    traffic_discount_percent: Percent = 0
    device_discount_percent: Percent = 0
    auto_assign_total_spent_kopeks: Kopeks | None = Field(
        default=None, description="Total spend that moves a user into the group; 0 or null: none."
    )
    apply_discounts_to_addons: bool = True
    is_default: bool = Field(
        default=False, description="Make it the group of new users (the previous default stops being it)."
    )


class PromoGroupUpdateRequest(BaseModel):
    """Absent or null fields stay as they are."""

    period_discounts: PeriodDiscounts | None = Field(
        default=None, description=PERIOD_DISCOUNTS_DESCRIPTION, examples=[{"1": 10, "6": 20}]
    )
    name: Name | None = None
    priority: Priority | None = None
    server_discount_percent: Percent | None = None
    traffic_discount_percent: Percent | None = None
    device_discount_percent: Percent | None = None
    auto_assign_total_spent_kopeks: Kopeks | None = Field(default=None, description="0 clears the threshold.")
    apply_discounts_to_addons: bool | None = None
    is_default: bool | None = Field(
        default=None,
        description="true: make it the default group; false on the default group: the oldest other "
        "group becomes the default (the only group stays the default).",
    )

"""Wire models of the administrators' views: the payment methods' configuration and the
payments of every user."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import BaseModel, Field

from subsvc_payments.schemas import ManualCheckResponse, PendingPaymentResponse

Kopeks = Annotated[int, Field(ge=0)]


class SubOptionInfo(BaseModel):
    """A sub-option the provider offers (e.g. card, SBP)."""

    id: str
    name: str


class PromoGroupSimple(BaseModel):
    """A promo group a method may be limited to."""

    id: int
    name: str


class PaymentMethodConfigResponse(BaseModel):
    """A method's configuration: the overrides (``null``: the provider's default), the
    provider's defaults beside them, and who sees it."""

    method_id: str
    sort_order: int
    is_enabled: bool
    display_name: str | None = Field(None, description="Override of the name (null: the provider's)")
    default_display_name: str
    description: str | None = Field(None, description="Override of the description (null: the provider's)")
    default_description: str | None = None
    sub_options: dict[str, bool] | None = Field(
        None, description="{option_id: on}; an option not named is on"
    )
    available_sub_options: list[SubOptionInfo] | None = None
    quick_amounts: list[int] | None = Field(None, description="Override of the one-tap amounts")
    default_quick_amounts: list[int] = Field(default_factory=list)
    min_amount_kopeks: int | None = None
    max_amount_kopeks: int | None = None
    default_min_amount_kopeks: int
    default_max_amount_kopeks: int
    user_type_filter: str = Field(
        description="all, messenger (accounts with a messenger id) or email (without)"
    )
    first_topup_filter: str = Field(description="any, yes (no completed deposit yet) or no (one made)")
    promo_group_filter_mode: str = Field(description="all, or selected: members of allowed_promo_group_ids")
    allowed_promo_group_ids: list[int] = Field(default_factory=list)
    open_url_direct: bool = False
    is_provider_configured: bool
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None


class PaymentMethodConfigUpdateRequest(BaseModel):
    """A partial update: a field left out is unchanged; ``null`` (or ``reset_*``) puts an
    override back to the provider's default."""

    is_enabled: bool | None = None
    display_name: str | None = Field(
        None, min_length=1, max_length=255, description="Null to reset to default"
    )
    description: str | None = Field(None, max_length=2000, description="Null to reset to default")
    sub_options: dict[str, bool] | None = Field(None, description="{option_id: on}; null: every option on")
    quick_amounts: list[Annotated[int, Field(ge=1)]] | None = Field(None, max_length=20)
    min_amount_kopeks: Kopeks | None = None
    max_amount_kopeks: Kopeks | None = None
    user_type_filter: str | None = Field(None, pattern="^(all|messenger|email)$")
    first_topup_filter: str | None = Field(None, pattern="^(any|yes|no)$")
    promo_group_filter_mode: str | None = Field(None, pattern="^(all|selected)$")
    allowed_promo_group_ids: list[int] | None = Field(None, max_length=1000)
    open_url_direct: bool | None = None
    reset_display_name: bool = False
    reset_description: bool = False
    reset_quick_amounts: bool = False
    reset_min_amount: bool = False
    reset_max_amount: bool = False


class SortOrderRequest(BaseModel):
    """The methods in their new order (the others follow, as they were)."""

    method_ids: list[str] = Field(max_length=200)


class AdminPaymentResponse(PendingPaymentResponse):
    """A payment with its user, for the administrators."""

    user_email: str | None = None
    decline_reason: str | None = Field(None, description="Why it failed or was refused")


class AdminPaymentListResponse(BaseModel):
    """A page of payments: by ``page``, or after a ``cursor`` (keyset; ``next_cursor`` is the
    next page's, ``null`` on the last)."""

    items: list[AdminPaymentResponse]
    total: int
    page: int
    per_page: int
    pages: int
    next_cursor: str | None = None


class AdminManualCheckResponse(ManualCheckResponse):
    """The check's result, the payment with its user."""

    payment: AdminPaymentResponse | None = None


class PaymentsStatsResponse(BaseModel):
    """Pending payments: how many, and per method."""

    total_pending: int
    by_method: dict[str, int]


class Figures(BaseModel):
    """Counts by status group and sums: asked, and credited (``paid``)."""

    total: int = 0
    pending: int = 0
    paid: int = 0
    cancelled: int = 0
    amount_kopeks: int = 0
    paid_amount_kopeks: int = 0


class DayFigures(Figures):
    """One method's figures of one UTC day."""

    date: dt.date
    method: str


class SearchStatsResponse(Figures):
    """The figures of a search: in all, per method, and per method and UTC day."""

    by_method: dict[str, Figures]
    by_day: list[DayFigures] = Field(default_factory=list)

"""The Cabinet Admin Tariffs wire contract: the reference's field names, defaults and
requiredness, with the bounds it lacks (values the database could not store are a 422)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from subsvc.api import INT32_MAX

MAX_PERIOD_DAYS = 36_500
TRAFFIC_RESET_MODES = ("DAY", "WEEK", "MONTH", "MONTH_ROLLING", "NO_RESET")
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
Kopeks = Annotated[int, Field(ge=0, le=INT32_MAX)]
Gigabytes = Annotated[int, Field(ge=0, le=INT32_MAX)]
PositiveInt = Annotated[int, Field(ge=1, le=INT32_MAX)]
TierLevel = Annotated[int, Field(ge=1, le=10)]
SquadUuid = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
LavaProductId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
ExternalSquadUuid = Annotated[str, StringConstraints(strip_whitespace=True, pattern=UUID_PATTERN)]


def _upper(value: object) -> object:
    return value.strip().upper() if isinstance(value, str) else value


ResetMode = Annotated[
    str, BeforeValidator(_upper), Field(json_schema_extra={"enum": list(TRAFFIC_RESET_MODES)})
]


class PeriodPrice(BaseModel):
    """Price for a specific period."""

    days: int = Field(ge=1, le=MAX_PERIOD_DAYS, description="Period in days")
    price_kopeks: Kopeks = Field(description="Price in kopeks")
    price_rubles: float | None = None


class ServerTrafficLimit(BaseModel):
    """Traffic limit for a specific server."""

    traffic_limit_gb: Gigabytes = Field(default=0, description="0 = use default tariff limit")


# --- requests ----------------------------------------------------------------------------------


def _unique_periods(prices: list[PeriodPrice] | None) -> list[PeriodPrice] | None:
    if prices is None:
        return None
    seen: set[int] = set()
    for price in prices:
        if price.days in seen:
            raise ValueError(f"duplicate period: {price.days} days")
        seen.add(price.days)
    return sorted(prices, key=lambda price: price.days)


def _unique(values: list[Any] | None) -> list[Any] | None:
    return None if values is None else list(dict.fromkeys(values))


def _packages(packages: dict[str, int] | None) -> dict[str, int] | None:
    """``{gb: kopeks}`` with whole positive gigabytes as keys (``"10"``, not ``"10.5"``)."""
    if packages is None:
        return None
    normalised: dict[str, int] = {}
    for key, price in packages.items():
        try:
            gb = int(str(key).strip())
        except ValueError:
            raise ValueError(f"traffic package size must be a whole number of GB: {key!r}") from None
        if not 1 <= gb <= INT32_MAX:
            raise ValueError(f"traffic package size out of range: {key!r}")
        if str(gb) in normalised:
            raise ValueError(f"duplicate traffic package: {gb} GB")
        normalised[str(gb)] = price
    return dict(sorted(normalised.items(), key=lambda item: int(item[0])))


def _reset_mode(mode: str | None) -> str | None:
    if mode is not None and mode not in TRAFFIC_RESET_MODES:
        raise ValueError(f"traffic_reset_mode must be one of {', '.join(TRAFFIC_RESET_MODES)} or null")
    return mode


class _TariffFields(BaseModel):
    """Validators shared by create and update (a field absent from ``None`` is left alone)."""

    @field_validator("period_prices", check_fields=False)
    @classmethod
    def _check_periods(cls, value: list[PeriodPrice] | None) -> list[PeriodPrice] | None:
        return _unique_periods(value)

    @field_validator("allowed_squads", "promo_group_ids", check_fields=False)
    @classmethod
    def _dedupe(cls, value: list[Any] | None) -> list[Any] | None:
        return _unique(value)

    @field_validator("traffic_topup_packages", check_fields=False)
    @classmethod
    def _check_packages(cls, value: dict[str, int] | None) -> dict[str, int] | None:
        return _packages(value)

    @field_validator("traffic_reset_mode", check_fields=False)
    @classmethod
    def _check_reset_mode(cls, value: str | None) -> str | None:
        return _reset_mode(value)

    @field_validator("server_traffic_limits", check_fields=False)
    @classmethod
    def _check_limit_keys(
        cls, value: dict[str, ServerTrafficLimit] | None
    ) -> dict[str, ServerTrafficLimit] | None:
        if value is None:
            return None
        cleaned = {key.strip(): limit for key, limit in value.items()}
        if any(not key for key in cleaned):
            raise ValueError("server_traffic_limits keys must be server squad uuids")
        return cleaned


class TariffCreateRequest(_TariffFields):
    name: Name
    description: str | None = None
    is_active: bool = True
    allow_traffic_topup: bool = True
    traffic_topup_enabled: bool = False
    traffic_topup_packages: dict[str, Kopeks] = Field(default_factory=dict)
    max_topup_traffic_gb: Gigabytes = 0
    traffic_limit_gb: Gigabytes = Field(default=0, description="0 = unlimited")
    device_limit: PositiveInt = 1
    device_price_kopeks: Kopeks | None = None
    max_device_limit: PositiveInt | None = None
    tier_level: TierLevel = 1
    period_prices: list[PeriodPrice] = Field(default_factory=list)
    allowed_squads: list[SquadUuid] = Field(default_factory=list, description="Server UUIDs")
    server_traffic_limits: dict[str, ServerTrafficLimit] = Field(
        default_factory=dict, description="Per-server traffic limits"
    )
    promo_group_ids: list[PositiveInt] = Field(default_factory=list)
    custom_days_enabled: bool = False
    price_per_day_kopeks: Kopeks = 0
    min_days: Annotated[int, Field(ge=1, le=MAX_PERIOD_DAYS)] = 1
    max_days: Annotated[int, Field(ge=1, le=MAX_PERIOD_DAYS)] = 365
    custom_traffic_enabled: bool = False
    traffic_price_per_gb_kopeks: Kopeks = 0
    min_traffic_gb: PositiveInt = 1
    max_traffic_gb: PositiveInt = 1000
    is_daily: bool = False
    daily_price_kopeks: Kopeks = 0
    traffic_reset_mode: ResetMode | None = None
    external_squad_uuid: ExternalSquadUuid | None = None
    lava_product_id: LavaProductId | None = Field(
        default=None, description="The tariff's product in the Lava payment system"
    )
    show_in_gift: bool = True


class TariffUpdateRequest(_TariffFields):
    """Absent or null fields stay as they are, except the nullable ones (``description``,
    ``device_price_kopeks``, ``max_device_limit``, ``traffic_reset_mode``,
    ``external_squad_uuid``, ``lava_product_id``), which an explicit null clears."""

    name: Name | None = None
    description: str | None = None
    is_active: bool | None = None
    allow_traffic_topup: bool | None = None
    traffic_topup_enabled: bool | None = None
    traffic_topup_packages: dict[str, Kopeks] | None = None
    max_topup_traffic_gb: Gigabytes | None = None
    traffic_limit_gb: Gigabytes | None = None
    device_limit: PositiveInt | None = None
    device_price_kopeks: Kopeks | None = None
    max_device_limit: PositiveInt | None = None
    tier_level: TierLevel | None = None
    display_order: Annotated[int, Field(ge=0, le=INT32_MAX)] | None = None
    period_prices: list[PeriodPrice] | None = None
    allowed_squads: list[SquadUuid] | None = None
    server_traffic_limits: dict[str, ServerTrafficLimit] | None = None
    promo_group_ids: list[PositiveInt] | None = None
    custom_days_enabled: bool | None = None
    price_per_day_kopeks: Kopeks | None = None
    min_days: Annotated[int, Field(ge=1, le=MAX_PERIOD_DAYS)] | None = None
    max_days: Annotated[int, Field(ge=1, le=MAX_PERIOD_DAYS)] | None = None
    custom_traffic_enabled: bool | None = None
    traffic_price_per_gb_kopeks: Kopeks | None = None
    min_traffic_gb: PositiveInt | None = None
    max_traffic_gb: PositiveInt | None = None
    is_daily: bool | None = None
    daily_price_kopeks: Kopeks | None = None
    traffic_reset_mode: ResetMode | None = None
    external_squad_uuid: ExternalSquadUuid | None = None
    lava_product_id: LavaProductId | None = Field(
        default=None, description="The tariff's product in the Lava payment system"
    )
    show_in_gift: bool | None = None


class TariffSortOrderRequest(BaseModel):
    """Request to reorder tariffs."""

    tariff_ids: list[PositiveInt] = Field(min_length=1, description="Ordered list of tariff IDs")

    @model_validator(mode="after")
    def _no_repeats(self) -> TariffSortOrderRequest:
        if len(set(self.tariff_ids)) != len(self.tariff_ids):
            raise ValueError("tariff_ids must not repeat an id")
        return self


# --- responses ---------------------------------------------------------------------------------


class TariffListItem(BaseModel):
    """Tariff item for list view."""

    id: int
    name: str
    description: str | None = None
    is_active: bool
    is_trial_available: bool
    is_daily: bool = False
    daily_price_kopeks: int = 0
    allow_traffic_topup: bool = True
    show_in_gift: bool = True
    lava_product_id: str | None = None
    traffic_limit_gb: int
    device_limit: int
    tier_level: int
    display_order: int
    servers_count: int
    subscriptions_count: int
    created_at: datetime


class TariffListResponse(BaseModel):
    """Response with list of tariffs."""

    tariffs: list[TariffListItem]
    total: int


class ServerInfo(BaseModel):
    """Server info for tariff."""

    id: int
    squad_uuid: str
    display_name: str
    country_code: str | None = None
    is_selected: bool = False
    traffic_limit_gb: int | None = None


class PromoGroupInfo(BaseModel):
    """Promo group info for tariff."""

    id: int
    name: str
    is_selected: bool = False


class TariffDetailResponse(BaseModel):
    """Detailed tariff response."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    description: str | None = None
    is_active: bool
    is_trial_available: bool
    allow_traffic_topup: bool = True
    traffic_topup_enabled: bool = False
    traffic_topup_packages: dict[str, int] = Field(default_factory=dict)
    max_topup_traffic_gb: int = 0
    traffic_limit_gb: int
    device_limit: int
    device_price_kopeks: int | None = None
    max_device_limit: int | None = None
    tier_level: int
    display_order: int
    period_prices: list[PeriodPrice]
    allowed_squads: list[str]
    server_traffic_limits: dict[str, ServerTrafficLimit] = Field(default_factory=dict)
    servers: list[ServerInfo]
    promo_groups: list[PromoGroupInfo]
    subscriptions_count: int
    custom_days_enabled: bool = False
    price_per_day_kopeks: int = 0
    min_days: int = 1
    max_days: int = 365
    custom_traffic_enabled: bool = False
    traffic_price_per_gb_kopeks: int = 0
    min_traffic_gb: int = 1
    max_traffic_gb: int = 1000
    is_daily: bool = False
    daily_price_kopeks: int = 0
    traffic_reset_mode: str | None = None
    external_squad_uuid: str | None = None
    lava_product_id: str | None = None
    show_in_gift: bool = True
    created_at: datetime
    updated_at: datetime | None = None


class TariffToggleResponse(BaseModel):
    """Response after toggling tariff."""

    id: int
    is_active: bool
    message: str


class TariffTrialResponse(BaseModel):
    """Response after setting trial tariff."""

    id: int
    is_trial_available: bool
    message: str


class TariffStatsResponse(BaseModel):
    """Tariff statistics."""

    id: int
    name: str
    subscriptions_count: int
    active_subscriptions: int
    trial_subscriptions: int
    revenue_kopeks: int
    revenue_rubles: float


class ExternalSquadInfoResponse(BaseModel):
    """External squad info from the VPN panel."""

    uuid: str
    name: str
    members_count: int


class SyncSquadsResponse(BaseModel):
    """Response after syncing squads for tariff subscriptions."""

    tariff_id: int
    tariff_name: str
    total_subscriptions: int
    updated_count: int
    failed_count: int
    skipped_count: int
    errors: list[str] = Field(default_factory=list)


class MessageResponse(BaseModel):
    """A confirmation of a change."""

    message: str


class TariffDeletedResponse(MessageResponse):
    """A tariff was deleted (only a tariff no subscription uses can be: always 0 affected)."""

    affected_subscriptions: int = 0


class TariffEvent(BaseModel):
    """Payload of ``tariff.created``, ``tariff.updated`` and ``tariff.deleted``."""

    tariff_id: int
    name: str
    is_active: bool
    changes: list[str] = Field(default_factory=list, description="The fields an update changed.")

"""Request and response bodies: the Web API's (camelCase, tag `servers`) and the cabinet
administrators' (snake_case, tag `Cabinet Admin Servers`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, computed_field
from pydantic.alias_generators import to_camel
from subsvc_users.api import PromoGroupSummary

from subsvc.api import INT32_MAX, rubles

SquadUuid = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
OptionalName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=255)]
CountryCode = Annotated[str, StringConstraints(strip_whitespace=True, max_length=5)]
Kopeks = Annotated[int, Field(ge=0, le=INT32_MAX)]
UserLimit = Annotated[int, Field(ge=0, le=INT32_MAX)]
SortOrder = Annotated[int, Field(ge=-INT32_MAX, le=INT32_MAX)]
GroupIds = list[Annotated[int, Field(ge=1, le=INT32_MAX)]]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class _ServerIdentity(BaseModel):
    """The fields both APIs' server answers start with."""

    id: int
    squad_uuid: str
    display_name: str
    original_name: str | None = None
    country_code: str | None = None
    is_available: bool


# --- Web API ---------------------------------------------------------------------------------


class ServerCreateRequest(_Camel):
    """A new server. `maxUsers` null or 0 = no limit; no `promoGroupIds` = every group may buy it."""

    squad_uuid: SquadUuid
    display_name: Name
    original_name: OptionalName | None = None
    country_code: CountryCode | None = None
    price_kopeks: Kopeks = 0
    description: str | None = None
    max_users: UserLimit | None = None
    is_available: bool = True
    is_trial_eligible: bool = False
    sort_order: SortOrder = 0
    promo_group_ids: GroupIds | None = Field(
        default=None, description="The promo groups that may buy the server (none: every group)."
    )


class ServerUpdateRequest(_Camel):
    """Fields to change. An explicit null clears `originalName`, `countryCode`, `description`
    and `maxUsers`; elsewhere null leaves the field as it is. A `promoGroupIds` list replaces
    the server's promo groups."""

    display_name: Name | None = None
    original_name: OptionalName | None = None
    country_code: CountryCode | None = None
    price_kopeks: Kopeks | None = None
    description: str | None = None
    max_users: UserLimit | None = None
    is_available: bool | None = None
    is_trial_eligible: bool | None = None
    sort_order: SortOrder | None = None
    promo_group_ids: GroupIds | None = Field(
        default=None, description="When given, replaces the server's promo groups (empty: every group)."
    )


class ServerResponse(_ServerIdentity, _Camel):
    """A server with its promo-group restrictions."""

    is_trial_eligible: bool = False
    price_kopeks: int
    description: str | None = None
    sort_order: int = 0
    max_users: int | None = None
    current_users: int = 0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    promo_groups: list[PromoGroupSummary] = Field(default_factory=list)

    @computed_field(alias="priceRubles")  # type: ignore[prop-decorator]
    @property
    def price_rubles(self) -> float:
        return rubles(self.price_kopeks)


class ServerListResponse(_Camel):
    """A page of servers (`page` from 1)."""

    items: list[ServerResponse]
    total: int
    page: int
    limit: int


class ServerStatisticsResponse(_Camel):
    """Totals over every server. Revenue: each server's price times its current users."""

    total_servers: int
    available_servers: int
    unavailable_servers: int
    servers_with_connections: int
    total_revenue_kopeks: int

    @computed_field(alias="totalRevenueRubles")  # type: ignore[prop-decorator]
    @property
    def total_revenue_rubles(self) -> float:
        return rubles(self.total_revenue_kopeks)


class ServerSyncResponse(BaseModel):
    """What a sync with the VPN panel changed; `total` = servers after it."""

    created: int
    updated: int
    removed: int
    total: int


class ServerCountsSyncResponse(BaseModel):
    """How many servers' `currentUsers` changed."""

    updated: int


class ServerDeleteResponse(BaseModel):
    success: bool
    message: str


class ServerConnectedUser(_Camel):
    """A user with a subscription connected to the server's squad (the newest such one)."""

    id: int
    messenger_id: int | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    status: str
    balance_kopeks: int
    subscription_id: int | None = None
    subscription_status: str | None = None
    subscription_end_date: datetime | None = None

    @computed_field(alias="balanceRubles")  # type: ignore[prop-decorator]
    @property
    def balance_rubles(self) -> float:
        return rubles(self.balance_kopeks)


class ServerConnectedUsersResponse(BaseModel):
    items: list[ServerConnectedUser]
    total: int
    limit: int
    offset: int


# --- Cabinet admin -----------------------------------------------------------------------------


class ServerListItem(_ServerIdentity):
    """Server item for list view."""

    is_trial_eligible: bool
    price_kopeks: int
    max_users: int | None = None
    current_users: int
    sort_order: int
    is_full: bool
    availability_status: str
    created_at: datetime

    @computed_field  # type: ignore[prop-decorator]
    @property
    def price_rubles(self) -> float:
        return rubles(self.price_kopeks)


class CabinetServerListResponse(BaseModel):
    """Response with list of servers."""

    servers: list[ServerListItem]
    total: int


class PromoGroupInfo(BaseModel):
    """A promo group, and whether it may buy the server."""

    id: int
    name: str
    is_selected: bool = False


class ServerDetailResponse(ServerListItem):
    """Detailed server response: every promo group (the allowed ones selected), the live paid
    subscriptions on the squad, and the tariffs that offer it."""

    description: str | None = None
    promo_groups: list[PromoGroupInfo]
    active_subscriptions: int
    tariffs_using: list[str]
    updated_at: datetime | None = None


class CabinetServerUpdateRequest(BaseModel):
    """Fields to change (null: unchanged). `max_users` 0 removes the limit; a
    `promo_group_ids` list replaces the server's promo groups."""

    display_name: (
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)] | None
    ) = None
    description: str | None = None
    country_code: Annotated[str, StringConstraints(strip_whitespace=True, max_length=5)] | None = None
    is_available: bool | None = None
    is_trial_eligible: bool | None = None
    price_kopeks: Kopeks | None = None
    max_users: UserLimit | None = None
    sort_order: Annotated[int, Field(ge=0, le=INT32_MAX)] | None = None
    promo_group_ids: GroupIds | None = None


class ServerStatsResponse(BaseModel):
    """Server statistics: live paid and trial subscriptions on the squad, and how full it is."""

    id: int
    display_name: str
    squad_uuid: str
    current_users: int
    max_users: int | None
    active_subscriptions: int
    trial_subscriptions: int
    usage_percent: float | None = None


class ServerToggleResponse(BaseModel):
    id: int
    is_available: bool
    message: str


class ServerTrialToggleResponse(BaseModel):
    id: int
    is_trial_eligible: bool
    message: str


class CabinetServerSyncResponse(BaseModel):
    """Response after syncing with the VPN panel."""

    created: int
    updated: int
    removed: int
    message: str

"""Wire models of the paid add-on operations (devices, traffic, countries)."""

from __future__ import annotations

from pydantic import BaseModel, Field

YANDEX_CID = Field(None, max_length=128, pattern=r"^[A-Za-z0-9._:-]{4,128}$")


class DevicePurchaseRequest(BaseModel):
    """Request to purchase additional device slots."""

    devices: int = Field(ge=1, le=100, description="Number of additional devices")
    yandex_cid: str | None = YANDEX_CID


class TrafficPurchaseRequest(BaseModel):
    """Request to purchase additional traffic."""

    gb: int = Field(ge=0, le=100000, description="GB to purchase (0 = unlimited)")
    yandex_cid: str | None = YANDEX_CID


class DeviceReduceRequest(BaseModel):
    """The device limit wanted (below the current one)."""

    new_device_limit: int = Field(description="The new device limit (at least 1, below the current one)")


class CountriesRequest(BaseModel):
    """The squads the subscription should connect to (those not connected yet are bought)."""

    countries: list[str] = Field(max_length=1000, description="Squad UUIDs")


class CartSaved(BaseModel):
    success: bool = True
    cart_saved: bool = True


class DevicePrice(BaseModel):
    """What more devices cost now, or why they cannot be bought (``available`` false)."""

    available: bool
    reason: str | None = None
    devices: int | None = None
    current_device_limit: int | None = None
    new_device_limit: int | None = None
    max_device_limit: int | None = None
    chargeable_devices: int | None = None
    price_per_device_kopeks: int | None = None
    price_per_device_label: str | None = None
    days_left: int | None = None
    base_price_kopeks: int | None = None
    discount_percent: int = 0
    discount_kopeks: int = 0
    total_price_kopeks: int | None = None
    total_price_label: str | None = None
    balance_kopeks: int | None = None
    has_enough_balance: bool | None = None
    missing_amount_kopeks: int | None = None


class DevicesPurchased(BaseModel):
    success: bool = True
    message: str
    devices_added: int
    new_device_limit: int
    amount_paid_kopeks: int
    amount_paid_label: str
    new_balance_kopeks: int
    discount_percent: int = 0
    discount_kopeks: int = 0
    base_price_kopeks: int | None = None


class DeviceReductionInfo(BaseModel):
    available: bool
    reason: str | None = None
    current_device_limit: int = 0
    min_device_limit: int = 1
    can_reduce: bool = False
    connected_devices_count: int = 0


class DeviceReduced(BaseModel):
    success: bool = True
    message: str
    old_device_limit: int
    new_device_limit: int
    removed_devices: list[str] = Field(description="Hardware ids of the devices deleted in the panel")
    removed_devices_count: int


class TrafficPackage(BaseModel):
    """Available traffic package (``price_kopeks``: what a purchase charges now)."""

    gb: int
    price_kopeks: int
    price_rubles: float
    is_unlimited: bool = False
    discount_percent: int = 0
    base_price_kopeks: int | None = None
    discount_kopeks: int | None = None


class TrafficPurchased(BaseModel):
    success: bool = True
    message: str = "Traffic purchased successfully"
    gb_added: int
    new_traffic_limit_gb: int
    amount_paid_kopeks: int
    new_balance_kopeks: int
    discount_percent: int = 0
    discount_kopeks: int = 0
    base_price_kopeks: int | None = None


class TrafficSwitched(BaseModel):
    success: bool = True
    message: str
    old_traffic_gb: int
    new_traffic_gb: int
    is_upgrade: bool
    amount_paid_kopeks: int
    new_balance_kopeks: int


class Country(BaseModel):
    uuid: str
    name: str
    country_code: str | None
    price_kopeks: int = Field(description="Monthly price before the servers discount")
    price_rubles: float
    price_per_month_kopeks: int = Field(description="Monthly price after the servers discount")
    prorated_price_kopeks: int = Field(description="What adding it costs for the days left")
    discount_percent: int = 0
    is_available: bool
    is_connected: bool


class CountriesResponse(BaseModel):
    countries: list[Country]
    connected_count: int
    connected_squads: list[str]
    has_trial: bool
    days_left: int


class CountriesUpdated(BaseModel):
    success: bool = True
    message: str = "Countries updated"
    added: list[str]
    removed: list[str]
    connected_squads: list[str]
    amount_paid_kopeks: int
    new_balance_kopeks: int

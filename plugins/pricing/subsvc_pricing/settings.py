"""Settings of the pricing plugin: the sales mode and the classic mode's price tables.

Tables are comma lists of ``key:value`` pairs (``30:9900,90:26900``): kopeks per period
(days), per traffic tier (GB; 0 = unlimited) or per traffic package (GB), and percents per
period for the default promo group. The device limits of classic mode are the subscriptions
plugin's (``DEFAULT_DEVICE_LIMIT``, ``MAX_DEVICES_LIMIT``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import NoDecode

from subsvc.settings import PluginSettings

Table = Annotated[dict[int, int], NoDecode]
Days = Annotated[list[int], NoDecode]


def _pairs(value: object) -> object:
    """``"30:9900, 90:26900"`` -> ``{30: 9900, 90: 26900}`` (other values as given)."""
    if not isinstance(value, str):
        return value
    table: dict[str, str] = {}
    for item in value.split(","):
        if not item.strip():
            continue
        key, sep, amount = item.partition(":")
        if not sep:
            raise ValueError(f"{item.strip()!r} is not key:value")
        table[key.strip()] = amount.strip()
    return table


class PricingSettings(PluginSettings):
    """What the engine prices with besides the tariffs, servers and promo groups."""

    SALES_MODE: Literal["classic", "tariffs"] = Field(
        "tariffs",
        description="`tariffs`: subscriptions are bought as tariffs; `classic`: period, servers, traffic "
        "and devices priced from the tables below.",
    )
    CLASSIC_PERIOD_PRICES: Table = Field(
        default_factory=lambda: {14: 7000, 30: 9900, 60: 18900, 90: 26900, 180: 49900, 360: 89900},
        description="Classic mode: `days:kopeks` of each period on sale.",
    )
    CLASSIC_RENEWAL_PERIODS: Days = Field(
        default_factory=lambda: [30, 90, 180],
        description="Classic mode (and subscriptions without a priced tariff): the renewal periods.",
    )
    CLASSIC_TRAFFIC_PRICES: Table = Field(
        default_factory=lambda: {5: 2000, 10: 3500, 25: 7000, 50: 11000, 100: 15000, 0: 20000},
        description="Classic mode: `gb:kopeks` a month of each traffic tier (0 = unlimited).",
    )
    TRAFFIC_SELECTION_MODE: Literal["selectable", "fixed"] = Field(
        "selectable",
        description="Classic mode: the buyer picks a tier, or every purchase gets the fixed limit.",
    )
    FIXED_TRAFFIC_LIMIT_GB: int = Field(
        100,
        ge=0,
        le=1_000_000,
        description="Classic mode with fixed traffic: the limit sold (0 = unlimited).",
    )
    CLASSIC_TRAFFIC_PACKAGES: Table = Field(
        default_factory=lambda: {5: 5000, 10: 9000, 25: 20000},
        description="Classic mode: `gb:kopeks` of the traffic packages bought on top (0 kopeks = not sold).",
    )
    PRICE_PER_DEVICE: int = Field(
        10000,
        ge=0,
        description="Kopeks a month per device above the included ones (classic mode, and tariffs "
        "without a device price of their own).",
    )
    BASE_PROMO_GROUP_PERIOD_DISCOUNTS_ENABLED: bool = Field(
        False,
        description="The default promo group takes the table below for periods it has no discount of.",
    )
    BASE_PROMO_GROUP_PERIOD_DISCOUNTS: Table = Field(
        default_factory=dict, description="`days:percent` of the default promo group (when enabled above)."
    )

    @field_validator(
        "CLASSIC_PERIOD_PRICES",
        "CLASSIC_TRAFFIC_PRICES",
        "CLASSIC_TRAFFIC_PACKAGES",
        "BASE_PROMO_GROUP_PERIOD_DISCOUNTS",
        mode="before",
    )
    @classmethod
    def _tables(cls, value: object) -> object:
        return _pairs(value)

    @field_validator("CLASSIC_RENEWAL_PERIODS", mode="before")
    @classmethod
    def _days(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("CLASSIC_PERIOD_PRICES", "CLASSIC_TRAFFIC_PRICES", "CLASSIC_TRAFFIC_PACKAGES")
    @classmethod
    def _not_negative(cls, value: dict[int, int]) -> dict[int, int]:
        if any(key < 0 or amount < 0 for key, amount in value.items()):
            raise ValueError("keys and prices must not be negative")
        return value

"""Settings of the subscriptions plugin (read from the environment like core's)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import NoDecode

from subsvc.settings import PluginSettings

SquadList = Annotated[list[str], NoDecode]


class SubscriptionSettings(PluginSettings):
    """Defaults of new subscriptions and limits of the add-ons."""

    TRIAL_DURATION_DAYS: int = Field(
        3, ge=1, le=36500, description="Days of a trial without `duration_days`."
    )
    TRIAL_TRAFFIC_LIMIT_GB: int = Field(
        10, ge=0, le=1_000_000, description="Traffic of a trial without a (non-zero) `traffic_limit_gb`."
    )
    TRIAL_DEVICE_LIMIT: int = Field(
        2, ge=1, le=10_000, description="Devices of a trial without `device_limit`."
    )
    TRIAL_SQUAD_UUIDS: SquadList = Field(
        default_factory=list, description="Comma list: squads of a new trial when none are given."
    )
    DEFAULT_TRAFFIC_LIMIT_GB: int = Field(
        100, ge=0, le=1_000_000, description="Traffic of a paid subscription without `traffic_limit_gb`."
    )
    DEFAULT_DEVICE_LIMIT: int = Field(
        1, ge=1, le=10_000, description="Devices of a paid subscription without `device_limit`."
    )
    DEFAULT_SQUAD_UUIDS: SquadList = Field(
        default_factory=list, description="Comma list: squads of a new paid subscription when none are given."
    )
    DEVICES_SELECTION_ENABLED: bool = Field(
        True, description="When false, new subscriptions without `device_limit` get the forced amount below."
    )
    DEVICES_SELECTION_DISABLED_AMOUNT: int = Field(
        0, ge=0, le=10_000, description="Forced device limit while selection is disabled; 0 = the defaults."
    )
    MAX_DEVICES_LIMIT: int = Field(
        0,
        ge=0,
        description="`POST /subscriptions/{id}/devices` never raises the limit above this; 0 = no cap.",
    )
    DEFAULT_AUTOPAY_ENABLED: bool = Field(False, description="Autopay of a new paid subscription.")
    DEFAULT_AUTOPAY_DAYS_BEFORE: int = Field(
        3, ge=0, le=365, description="Days before the end at which autopay charges (new subscriptions)."
    )
    MULTI_TARIFF_ENABLED: bool = Field(
        False,
        description="A user may hold several subscriptions, one per tariff; the cabinet then resolves "
        "`subscription_id` among them.",
    )
    TRAFFIC_PURCHASE_DAYS: int = Field(
        30, ge=1, le=36500, description="Days a traffic purchase (`POST /subscriptions/{id}/traffic`) counts."
    )

    @field_validator("TRIAL_SQUAD_UUIDS", "DEFAULT_SQUAD_UUIDS", mode="before")
    @classmethod
    def _split_commas(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

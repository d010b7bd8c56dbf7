"""The cabinet's wire contract for subscriptions and the balance (the reference's shapes)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from subsvc_billing.api import TransactionSummary


class ServerInfo(BaseModel):
    """A server (squad) the subscription connects to."""

    uuid: str
    name: str
    country_code: str | None = None


class TrafficPurchaseInfo(BaseModel):
    """Traffic bought on top of the limit, counting until ``expires_at``."""

    id: int
    traffic_gb: int
    expires_at: datetime
    created_at: datetime
    days_remaining: int
    progress_percent: float


class SubscriptionData(BaseModel):
    """A subscription as the cabinet shows it."""

    id: int
    status: str
    is_trial: bool
    start_date: datetime
    end_date: datetime
    days_left: int
    hours_left: int = 0
    minutes_left: int = 0
    time_left_display: str = ""
    traffic_limit_gb: int
    traffic_used_gb: float
    traffic_used_percent: float
    device_limit: int
    connected_squads: list[str] = Field(default_factory=list)
    servers: list[ServerInfo] = Field(default_factory=list)
    autopay_enabled: bool
    autopay_days_before: int
    subscription_url: str | None = None
    hide_subscription_link: bool = False
    is_active: bool
    is_expired: bool
    is_limited: bool = False
    traffic_purchases: list[TrafficPurchaseInfo] = Field(default_factory=list)
    is_daily: bool = False
    is_daily_paused: bool = False
    daily_price_kopeks: int | None = None
    next_daily_charge_at: datetime | None = None
    tariff_id: int | None = None
    tariff_name: str | None = None
    traffic_reset_mode: str | None = None


class SubscriptionListItem(SubscriptionData):
    """A subscription in the multi-tariff list (release 4.1.0): the cabinet's view of it and
    its crypto link."""

    subscription_crypto_link: str | None = None


class SubscriptionsListResponse(BaseModel):
    """``GET /cabinet/subscriptions`` (release 4.1.0's shape): every subscription of the user,
    newest first, and whether a user may hold several; ``total``, ``limit`` and ``offset``
    describe the window (``limit``/``offset`` query)."""

    subscriptions: list[SubscriptionListItem]
    multi_tariff_enabled: bool
    total: int
    limit: int
    offset: int


class SubscriptionDeleted(BaseModel):
    """``DELETE /cabinet/subscriptions/{subscription_id}``."""

    success: bool = True
    message: str
    subscription_id: int


class SubscriptionStatusResponse(BaseModel):
    """``GET /cabinet/subscription``: always 200; ``subscription`` is null without one."""

    has_subscription: bool
    subscription: SubscriptionData | None = None


class BalanceResponse(BaseModel):
    balance_kopeks: int
    balance_rubles: float


class CabinetTransaction(TransactionSummary):
    """A transaction in the cabinet's history."""

    model_config = ConfigDict(from_attributes=True)

    is_completed: bool
    created_at: datetime
    completed_at: datetime | None = None


class CabinetTransactionList(BaseModel):
    """A page of the history: ``pages`` is how many pages of ``per_page`` there are."""

    items: list[CabinetTransaction]
    total: int
    page: int
    per_page: int
    pages: int

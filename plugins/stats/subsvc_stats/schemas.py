"""The statistics wire contract (the spec's Overview statistics)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, computed_field

from subsvc.api import rubles


class UsersOverview(BaseModel):
    total: int
    active: int
    blocked: int
    balance_kopeks: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def balance_rubles(self) -> float:
        return rubles(self.balance_kopeks)


class SubscriptionsOverview(BaseModel):
    active: int
    expired: int


class SupportOverview(BaseModel):
    open_tickets: int


class PaymentsOverview(BaseModel):
    today_kopeks: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def today_rubles(self) -> float:
        return rubles(self.today_kopeks)


class OverviewStats(BaseModel):
    users: UsersOverview
    subscriptions: SubscriptionsOverview
    support: SupportOverview
    payments: PaymentsOverview


class FullStats(BaseModel):
    overview: OverviewStats
    users: dict[str, Any]
    subscriptions: dict[str, Any]
    transactions: dict[str, Any]
    referrals: dict[str, Any]
    generated_at: str

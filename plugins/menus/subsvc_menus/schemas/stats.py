"""Click statistics of the menu's buttons (`/menu-layout/stats`)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class ButtonClickStats(BaseModel):
    button_id: str
    clicks_total: int = 0
    clicks_today: int = 0
    clicks_week: int = 0
    clicks_month: int = 0
    last_click_at: datetime | None = None
    unique_users: int = 0


class MenuClickStatsResponse(BaseModel):
    items: list[ButtonClickStats]
    total_clicks: int
    period_start: datetime
    period_end: datetime


class DayClicks(BaseModel):
    date: str = Field(description="YYYY-MM-DD (UTC)")
    count: int


class ButtonClickStatsResponse(BaseModel):
    button_id: str
    stats: ButtonClickStats
    clicks_by_day: list[DayClicks] = Field(default_factory=list, description="Clicks per day [{date, count}]")


class ClickLogged(BaseModel):
    success: bool
    id: int


class ButtonTypeStats(BaseModel):
    button_type: str
    clicks_total: int
    unique_users: int


class ButtonTypeStatsResponse(BaseModel):
    items: list[ButtonTypeStats]
    total_clicks: int


class HourlyStats(BaseModel):
    hour: int
    count: int


class HourlyStatsResponse(BaseModel):
    items: list[HourlyStats]
    button_id: str | None = None


class WeekdayStats(BaseModel):
    weekday: int = Field(description="0 = Monday ... 6 = Sunday")
    weekday_name: str
    count: int


class WeekdayStatsResponse(BaseModel):
    items: list[WeekdayStats]
    button_id: str | None = None


class TopUserStats(BaseModel):
    user_id: int
    clicks_count: int
    last_click_at: datetime | None = None


class TopUsersResponse(BaseModel):
    items: list[TopUserStats]
    button_id: str | None = None
    limit: int


class Period(BaseModel):
    clicks: int
    days: int
    start: datetime
    end: datetime


class PeriodChange(BaseModel):
    absolute: int
    percent: float
    trend: Literal["up", "down", "stable"]


class PeriodComparisonResponse(BaseModel):
    current_period: Period
    previous_period: Period
    change: PeriodChange
    button_id: str | None = None


class UserClickSequence(BaseModel):
    button_id: str
    button_text: str | None = None
    clicked_at: datetime


class UserClickSequencesResponse(BaseModel):
    user_id: int
    items: list[UserClickSequence]
    total: int

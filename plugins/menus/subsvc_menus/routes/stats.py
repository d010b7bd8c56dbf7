"""`/menu-layout/stats` (tag menu-layout): clicks on the menu's buttons, logged and counted
(times are UTC)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import BigInt, Query, Router
from subsvc.db import utcnow
from subsvc_menus import clicks
from subsvc_menus.schemas.stats import (
    ButtonClickStats,
    ButtonClickStatsResponse,
    ButtonTypeStats,
    ButtonTypeStatsResponse,
    ClickLogged,
    DayClicks,
    HourlyStats,
    HourlyStatsResponse,
    MenuClickStatsResponse,
    Period,
    PeriodChange,
    PeriodComparisonResponse,
    TopUsersResponse,
    TopUserStats,
    UserClickSequence,
    UserClickSequencesResponse,
    WeekdayStats,
    WeekdayStatsResponse,
)

router = Router(area="web", tag="menu-layout", prefix="/menu-layout/stats")
Days = Annotated[int, Query(ge=1, le=3650, description="The period: the last this many days")]
ButtonFilter = Annotated[str | None, Query(max_length=100, description="Only this button's clicks")]


@router.get("")
async def get_menu_click_stats(session: AsyncSession, days: Days = 30) -> MenuClickStatsResponse:
    """Получить общую статистику кликов по всем кнопкам: per clicked button its all-time
    clicks and users, last click, and clicks today, in 7 days and in the period
    (``clicks_month``); ``total_clicks`` counts the period."""
    period = clicks.window(days)
    items = [ButtonClickStats(**item) for item in await clicks.per_button(session, period)]
    total = await clicks.total(session, period)
    return MenuClickStatsResponse(
        items=items, total_clicks=total, period_start=period.start, period_end=period.end
    )


@router.get("/buttons/{button_id}")
async def get_button_click_stats(
    session: AsyncSession, button_id: str, days: Days = 30
) -> ButtonClickStatsResponse:
    """Получить статистику кликов по конкретной кнопке, with its clicks per UTC day of the
    period (days with clicks, oldest first). A button never clicked has zeros."""
    period = clicks.window(days)
    stats = ButtonClickStats(**await clicks.one_button(session, button_id, period))
    per_day = [DayClicks(**day) for day in await clicks.by_day(session, button_id, period)]
    return ButtonClickStatsResponse(button_id=button_id, stats=stats, clicks_by_day=per_day)


@router.post("/log-click")
async def log_button_click(
    session: AsyncSession,
    button_id: Annotated[str, Query(min_length=1, max_length=100)],
    user_id: int | None = None,
    callback_data: Annotated[str | None, Query(max_length=255)] = None,
    button_type: Annotated[str | None, Query(max_length=20)] = None,
    button_text: Annotated[str | None, Query(max_length=255)] = None,
) -> ClickLogged:
    """Записать клик по кнопке (для внешней интеграции): ``{"success": true, "id"}``."""
    values = {
        "button_id": button_id,
        "user_id": user_id,
        "callback_data": callback_data,
        "button_type": button_type,
        "button_text": button_text,
    }
    return ClickLogged(success=True, id=await clicks.log(session, values))


@router.get("/by-type")
async def get_stats_by_button_type(session: AsyncSession, days: Days = 30) -> ButtonTypeStatsResponse:
    """Получить статистику кликов по типам кнопок (builtin, callback, url, mini_app): clicks
    logged with a type, in the period."""
    items = [ButtonTypeStats(**item) for item in await clicks.by_type(session, clicks.window(days))]
    return ButtonTypeStatsResponse(items=items, total_clicks=sum(item.clicks_total for item in items))


@router.get("/by-hour")
async def get_clicks_by_hour(
    session: AsyncSession, button_id: ButtonFilter = None, days: Days = 30
) -> HourlyStatsResponse:
    """Получить статистику кликов по часам дня (0-23, UTC), every hour listed."""
    items = [HourlyStats(**item) for item in await clicks.by_hour(session, clicks.window(days), button_id)]
    return HourlyStatsResponse(items=items, button_id=button_id)


@router.get("/by-weekday")
async def get_clicks_by_weekday(
    session: AsyncSession, button_id: ButtonFilter = None, days: Days = 30
) -> WeekdayStatsResponse:
    """Получить статистику кликов по дням недели (0 = Monday, UTC), every day listed."""
    items = [
        WeekdayStats(**item) for item in await clicks.by_weekday(session, clicks.window(days), button_id)
    ]
    return WeekdayStatsResponse(items=items, button_id=button_id)


@router.get("/top-users")
async def get_top_users(
    session: AsyncSession,
    button_id: ButtonFilter = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    days: Days = 30,
) -> TopUsersResponse:
    """Получить топ пользователей по количеству кликов in the period (most first)."""
    found = await clicks.top_users(session, clicks.window(days), button_id, limit)
    return TopUsersResponse(items=[TopUserStats(**item) for item in found], button_id=button_id, limit=limit)


@router.get("/compare")
async def get_period_comparison(
    session: AsyncSession,
    button_id: ButtonFilter = None,
    current_days: Annotated[int, Query(ge=1, le=3650)] = 7,
    previous_days: Annotated[int, Query(ge=1, le=3650)] = 7,
) -> PeriodComparisonResponse:
    """Сравнить статистику текущего и предыдущего периода: the last ``current_days`` days and
    the ``previous_days`` before them; the change in clicks and percent (0 when the previous
    period had none) and its trend."""
    now = utcnow()
    current_start = now - timedelta(days=current_days)
    previous_start = current_start - timedelta(days=previous_days)
    current = await clicks.previous_total(session, current_start, now + timedelta(microseconds=1), button_id)
    previous = await clicks.previous_total(session, previous_start, current_start, button_id)
    percent = round((current - previous) / previous * 100, 2) if previous else 0.0
    trend = "up" if percent > 0 else "down" if percent < 0 else "stable"
    return PeriodComparisonResponse(
        current_period=Period(clicks=current, days=current_days, start=current_start, end=now),
        previous_period=Period(clicks=previous, days=previous_days, start=previous_start, end=current_start),
        change=PeriodChange(absolute=current - previous, percent=percent, trend=trend),
        button_id=button_id,
    )


@router.get("/users/{user_id}/sequences")
async def get_user_click_sequences(
    session: AsyncSession, user_id: BigInt, limit: Annotated[int, Query(ge=1, le=500)] = 50
) -> UserClickSequencesResponse:
    """Получить последовательности кликов пользователя: the user's clicks, newest first;
    ``total`` counts them all."""
    found, total = await clicks.sequence(session, user_id, limit)
    items = [
        UserClickSequence(button_id=c.button_id, button_text=c.button_text, clicked_at=c.clicked_at)
        for c in found
    ]
    return UserClickSequencesResponse(user_id=user_id, items=items, total=total)

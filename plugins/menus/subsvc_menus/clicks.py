"""The click log of the menu's buttons and what is counted from it. Every figure is one
grouped query over the indexed log (by time, by button and time, by user and time)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Integer, case, cast, delete, distinct, func
from sqlalchemy import select as sa_select
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_menus.models import ButtonClick

LOG = ButtonClick.__table__  # type: ignore[attr-defined]
AT = LOG.c.clicked_at
WEEKDAYS = ("Понедельник", "Вторник", "Среда", "Четверг", "Пятница", "Суббота", "Воскресенье")


@dataclass(frozen=True)
class Window:
    """The period of a figure: the last ``days`` days up to ``end``."""

    days: int
    end: datetime

    @property
    def start(self) -> datetime:
        return self.end - timedelta(days=self.days)


def window(days: int) -> Window:
    return Window(days, utcnow())


async def log(session: AsyncSession, values: dict[str, Any]) -> int:
    click = ButtonClick(**values)
    session.add(click)
    await session.flush()
    assert click.id is not None
    return click.id


PRUNE_BATCH = 10_000


async def prune(session: AsyncSession, before: datetime) -> int:
    """Delete one batch of clicks older than ``before`` (oldest first); answers how many."""
    batch = sa_select(LOG.c.id).where(LOG.c.clicked_at < before).order_by(AT).limit(PRUNE_BATCH)
    result = await session.exec(delete(LOG).where(LOG.c.id.in_(batch.scalar_subquery())))
    return int(result.rowcount or 0)


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


def _utc(session: AsyncSession) -> ColumnElement[Any]:
    """The click time as UTC wall time (SQLite stores it so; PostgreSQL converts)."""
    return AT if _dialect(session) == "sqlite" else func.timezone("UTC", AT)


def _hour(session: AsyncSession) -> ColumnElement[Any]:
    if _dialect(session) == "sqlite":
        return cast(func.strftime("%H", AT), Integer)
    return cast(func.extract("hour", _utc(session)), Integer)


def _weekday(session: AsyncSession) -> ColumnElement[Any]:
    """0 = Monday ... 6 = Sunday (both databases count from Sunday = 0)."""
    sunday_first = (
        cast(func.strftime("%w", AT), Integer)
        if _dialect(session) == "sqlite"
        else cast(func.extract("dow", _utc(session)), Integer)
    )
    return (sunday_first + 6) % 7


def _day(session: AsyncSession) -> ColumnElement[Any]:
    """The UTC date."""
    return func.date(_utc(session))


def _only(query: Any, button_id: str | None) -> Any:
    return query.where(LOG.c.button_id == button_id) if button_id else query


def _summary_columns(period: Window) -> list[Any]:
    today = period.end.replace(hour=0, minute=0, second=0, microsecond=0)
    week = period.end - timedelta(days=7)
    return [
        func.count().label("clicks_total"),
        func.count(distinct(LOG.c.user_id)).label("unique_users"),
        func.max(AT).label("last_click_at"),
        func.coalesce(func.sum(case((today <= AT, 1), else_=0)), 0).label("clicks_today"),
        func.coalesce(func.sum(case((week <= AT, 1), else_=0)), 0).label("clicks_week"),
        func.coalesce(func.sum(case((period.start <= AT, 1), else_=0)), 0).label("clicks_month"),
    ]


def _summary(row: Any, button_id: str) -> dict[str, Any]:
    return {
        "button_id": button_id,
        "clicks_total": int(row.clicks_total),
        "unique_users": int(row.unique_users),
        "last_click_at": _aware(row.last_click_at),
        "clicks_today": int(row.clicks_today),
        "clicks_week": int(row.clicks_week),
        "clicks_month": int(row.clicks_month),
    }


async def per_button(session: AsyncSession, period: Window) -> list[dict[str, Any]]:
    """Every clicked button: all-time clicks and users, the last click, and the clicks of
    today, of the last 7 days and of the period; most clicked first."""
    query = (
        select(LOG.c.button_id, *_summary_columns(period))
        .group_by(LOG.c.button_id)
        .order_by(func.count().desc(), LOG.c.button_id)
    )
    return [_summary(row, row.button_id) for row in (await session.exec(query)).all()]


async def one_button(session: AsyncSession, button_id: str, period: Window) -> dict[str, Any]:
    row = (await session.exec(select(*_summary_columns(period)).where(LOG.c.button_id == button_id))).one()
    return _summary(row, button_id)


async def total(session: AsyncSession, period: Window, button_id: str | None = None) -> int:
    query = _only(
        select(func.count()).select_from(LOG).where(period.start <= AT, period.end >= AT), button_id
    )
    return int((await session.exec(query)).one())


async def by_day(session: AsyncSession, button_id: str, period: Window) -> list[dict[str, Any]]:
    day = _day(session).label("day")
    query = (
        select(day, func.count().label("n"))
        .where(LOG.c.button_id == button_id, period.start <= AT)
        .group_by(day)
        .order_by(day)
    )
    return [{"date": str(day), "count": int(n)} for day, n in (await session.exec(query)).all()]


async def by_type(session: AsyncSession, period: Window) -> list[dict[str, Any]]:
    query = (
        select(
            LOG.c.button_type,
            func.count().label("clicks"),
            func.count(distinct(LOG.c.user_id)).label("users"),
        )
        .where(period.start <= AT, LOG.c.button_type.is_not(None))
        .group_by(LOG.c.button_type)
        .order_by(func.count().desc(), LOG.c.button_type)
    )
    return [
        {"button_type": kind, "clicks_total": int(clicks), "unique_users": int(users)}
        for kind, clicks, users in (await session.exec(query)).all()
    ]


async def by_hour(session: AsyncSession, period: Window, button_id: str | None) -> list[dict[str, int]]:
    """All 24 hours (UTC), zero where nothing was clicked."""
    hour = _hour(session).label("hour")
    query = _only(select(hour, func.count().label("n")).where(period.start <= AT), button_id).group_by(hour)
    counts = {int(row.hour): int(row.n) for row in (await session.exec(query)).all()}
    return [{"hour": h, "count": counts.get(h, 0)} for h in range(24)]


async def by_weekday(session: AsyncSession, period: Window, button_id: str | None) -> list[dict[str, Any]]:
    """Monday (0) to Sunday (6), zero where nothing was clicked."""
    weekday = _weekday(session).label("weekday")
    query = _only(select(weekday, func.count().label("n")).where(period.start <= AT), button_id).group_by(
        weekday
    )
    counts = {int(row.weekday): int(row.n) for row in (await session.exec(query)).all()}
    return [{"weekday": d, "weekday_name": WEEKDAYS[d], "count": counts.get(d, 0)} for d in range(7)]


async def top_users(
    session: AsyncSession, period: Window, button_id: str | None, limit: int
) -> list[dict[str, Any]]:
    last = func.max(AT).label("last_click_at")
    query = _only(
        select(LOG.c.user_id, func.count().label("clicks"), last).where(
            period.start <= AT, LOG.c.user_id.is_not(None)
        ),
        button_id,
    )
    query = query.group_by(LOG.c.user_id).order_by(func.count().desc(), last.desc()).limit(limit)
    rows = (await session.exec(query)).all()
    return [
        {"user_id": row.user_id, "clicks_count": int(row.clicks), "last_click_at": _aware(row.last_click_at)}
        for row in rows
    ]


def _aware(value: Any) -> datetime | None:
    """An aggregate's time as aware UTC (SQLite answers max() of a time as its text)."""
    if value is None:
        return None
    moment = datetime.fromisoformat(value) if isinstance(value, str) else cast_datetime(value)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def cast_datetime(value: Any) -> datetime:
    assert isinstance(value, datetime), value
    return value


async def previous_total(session: AsyncSession, start: datetime, end: datetime, button_id: str | None) -> int:
    query = _only(select(func.count()).select_from(LOG).where(start <= AT, end > AT), button_id)
    return int((await session.exec(query)).one())


async def sequence(session: AsyncSession, user_id: int, limit: int) -> tuple[list[ButtonClick], int]:
    """The user's clicks, newest first, and how many there are."""
    query = (
        select(ButtonClick).where(LOG.c.user_id == user_id).order_by(AT.desc(), LOG.c.id.desc()).limit(limit)
    )
    clicks = (await session.exec(query)).all()
    count = (await session.exec(select(func.count()).select_from(LOG).where(LOG.c.user_id == user_id))).one()
    return list(clicks), int(count)

"""The cabinet's filter screens: the segments with their labels and recipient counts, the
tariffs, and the e-mail audiences (counted; see the README on e-mail broadcasts)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import ColumnElement, func, true
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_segments.api import LIVE_SUBSCRIPTION, SUBSCRIPTIONS, count_recipients, has_subscription, resolve
from subsvc_tariffs.api import Tariff
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc_broadcasts.schemas import BroadcastFilter, EmailFilterItem, TariffFilter, TariffForBroadcast

USERS: sa.Table = User.metadata.tables["users"]
TARIFFS: sa.Table = Tariff.metadata.tables["tariffs"]

FILTERS = {  # key: (label, group)
    "all": ("Все пользователи", "basic"),
    "active": ("Активные подписки", "subscription"),
    "trial": ("Триальные", "subscription"),
    "no": ("Без подписки", "subscription"),
    "expiring": ("Истекают (3 дня)", "subscription"),
    "expired": ("Истекшие", "subscription"),
    "zero": ("Нулевой трафик", "traffic"),
    "active_zero": ("Активные с нулевым трафиком", "traffic"),
    "trial_zero": ("Триальные с нулевым трафиком", "traffic"),
}
CUSTOM_FILTERS = {
    "custom_today": ("Регистрация сегодня", "registration"),
    "custom_week": ("Регистрация за неделю", "registration"),
    "custom_month": ("Регистрация за месяц", "registration"),
    "custom_active_today": ("Активны сегодня", "activity"),
    "custom_inactive_week": ("Неактивны 7+ дней", "activity"),
    "custom_inactive_month": ("Неактивны 30+ дней", "activity"),
    "custom_referrals": ("Пришли по рефералу", "source"),
    "custom_direct": ("Прямая регистрация", "source"),
}
ENDED = has_subscription(SUBSCRIPTIONS.c.status.in_(["expired", "disabled"]))
EMAIL_FILTERS: dict[str, tuple[str, str, ColumnElement[bool]]] = {
    "all_email": ("Все с email", "basic", true()),
    "email_only": ("Только email-регистрация", "auth_type", USERS.c.auth_type == "email"),
    "telegram_with_email": (
        "Telegram с email",
        "auth_type",
        sa.and_(USERS.c.auth_type != "email", USERS.c.messenger_id.is_not(None)),
    ),
    "active_email": ("С активной подпиской", "subscription", has_subscription(*LIVE_SUBSCRIPTION)),
    "expired_email": ("С истекшей подпиской", "subscription", ENDED),
}


async def count_target(app: Starlette, target: str) -> int:
    """Users of the target the bot can write to now (those a broadcast would go to)."""
    segment = resolve(app, target)
    return 0 if segment is None else await count_recipients(app, segment, reachable=True)


async def segment_filters(app: Starlette, labels: dict[str, tuple[str, str]]) -> list[BroadcastFilter]:
    return [
        BroadcastFilter(key=key, label=label, count=await count_target(app, key), group=group)
        for key, (label, group) in labels.items()
    ]


async def tariffs(app: Starlette, session: AsyncSession) -> list[TariffForBroadcast]:
    """Active tariffs by name, each with how many users a ``tariff_<id>`` broadcast reaches."""
    query = select(TARIFFS.c.id, TARIFFS.c.name).where(TARIFFS.c.is_active.is_(True)).order_by(TARIFFS.c.name)
    return [
        TariffForBroadcast(
            id=tariff_id,
            name=name,
            filter_key=f"tariff_{tariff_id}",
            active_users_count=await count_target(app, f"tariff_{tariff_id}"),
        )
        for tariff_id, name in (await session.exec(query)).all()
    ]


def tariff_filters(items: list[TariffForBroadcast]) -> list[TariffFilter]:
    return [
        TariffFilter(key=t.filter_key, label=t.name, tariff_id=t.id, count=t.active_users_count)
        for t in items
    ]


async def count_email(session: AsyncSession, target: str) -> int | None:
    """Active users with a verified e-mail in the audience; ``None`` for an unknown one."""
    known = EMAIL_FILTERS.get(target)
    if known is None:
        return None
    query = (
        select(func.count())
        .select_from(USERS)
        .where(
            USERS.c.status == "active", USERS.c.email.is_not(None), USERS.c.email_verified.is_(True), known[2]
        )
    )
    return int((await session.exec(query, params={"now": utcnow()})).one())


async def email_filters(session: AsyncSession) -> list[EmailFilterItem]:
    return [
        EmailFilterItem(key=key, label=label, count=await count_email(session, key) or 0, group=group)
        for key, (label, group, _) in EMAIL_FILTERS.items()
    ]

"""Every user's payments for the administrators: the search (text, status group, method,
period or dates) newest first, by page or by keyset cursor, each payment with its user (one
joined query); its figures by status group, method and UTC day in one aggregate query."""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Date, case, cast, func, or_, tuple_, union_all
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User, filters

from subsvc.api import INT32_MAX, INT64_MAX, HTTPError
from subsvc.auth.admins import normalise_email
from subsvc.db import utcnow
from subsvc_payments.admin_schemas import (
    AdminPaymentListResponse,
    AdminPaymentResponse,
    DayFigures,
    Figures,
    PaymentsStatsResponse,
    SearchStatsResponse,
)
from subsvc_payments.models import CANCELED, EXPIRED, FAILED, PENDING, REFUSED_MISMATCH, SUCCEEDED, Payment
from subsvc_payments.pending import PAYMENT_NOT_FOUND, Views

STATUS_GROUPS: dict[str, tuple[str, ...]] = {
    "pending": (PENDING,),
    "paid": (SUCCEEDED,),
    "cancelled": (FAILED, EXPIRED, CANCELED, REFUSED_MISMATCH),
}
"""``status_filter``'s groups of statuses; any other value is every status."""
PERIODS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30), "all": None}
"""``period``'s presets; any other value is the default, 24 h."""
DEFAULT_PERIOD = "24h"
BAD_RANGE = "date_from must be before date_to"
BAD_CURSOR = "Invalid cursor"
NEWEST_FIRST = (col(Payment.created_at).desc(), col(Payment.id).desc())


@dataclass(frozen=True)
class Search:
    """What the administrator looks for; ``None`` where anything goes."""

    text: str | None = None
    statuses: tuple[str, ...] | None = None
    method: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    @property
    def conditions(self) -> list[ColumnElement[bool]]:
        """Its WHERE conditions on ``payments``."""
        conditions: list[ColumnElement[bool]] = []
        if self.statuses is not None:
            conditions.append(col(Payment.status).in_(self.statuses))
        if self.method is not None:
            conditions.append(col(Payment.provider) == self.method)
        if self.since is not None:
            conditions.append(col(Payment.created_at) >= self.since)
        if self.until is not None:
            conditions.append(col(Payment.created_at) <= self.until)
        if self.text is not None:
            conditions.append(_text_condition(self.text))
        return conditions


def _utc(moment: datetime | None) -> datetime | None:
    """The time in UTC, a naive one read as UTC; one beyond the years 1..9999 once in UTC
    (``0001-01-01T00:00+05:00``) is the first or last time there is."""
    if moment is None or moment.tzinfo is None:
        return None if moment is None else moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        return (datetime.min if moment.year == 1 else datetime.max).replace(tzinfo=UTC)


def search(
    text: str | None,
    status_filter: str,
    method_filter: str | None,
    period: str,
    date_from: datetime | None,
    date_to: datetime | None,
) -> Search:
    """The search of the query parameters: dates (naive ones are UTC) win over the period;
    400 when ``date_from`` is after ``date_to``."""
    since, until = _utc(date_from), _utc(date_to)
    if since is not None and until is not None and since > until:
        raise HTTPError(400, BAD_RANGE)
    if since is None and until is None:
        span = PERIODS.get(period, PERIODS[DEFAULT_PERIOD])
        since = None if span is None else utcnow() - span
    statuses = STATUS_GROUPS.get(status_filter)
    return Search((text or "").strip() or None, statuses, method_filter or None, since, until)


def _text_condition(text: str) -> ColumnElement[bool]:
    """The provider's payment id, and: for digits, the payment's id, its user's id or
    messenger id; else its user found by the users list's search (names, username without
    its ``@``, referral code) or by e-mail (any case). One ``IN`` of a ``UNION ALL``, each
    part on an index (an ``OR`` would have PostgreSQL walk every payment)."""
    payments = select(col(Payment.id))
    parts = [payments.where(col(Payment.provider_payment_id) == text)]
    if text.isascii() and text.isdigit():
        number = int(text)
        if number <= INT32_MAX:
            parts += [
                payments.where(col(Payment.id) == number),
                payments.where(col(Payment.user_id) == number),
            ]
        users = select(col(User.id)).where(col(User.messenger_id) == number) if number <= INT64_MAX else None
    else:
        term = text.removeprefix("@") or text
        by_email = col(User.email) == normalise_email(term)  # stored normalised: its unique index
        users = select(col(User.id)).where(or_(*filters(search=term), by_email))
    if users is not None:
        parts.append(payments.where(col(Payment.user_id).in_(users.scalar_subquery())))
    return col(Payment.id).in_(union_all(*parts))


def encode_cursor(payment: Payment) -> str:
    """The key after which the next page starts: the payment's time and id."""
    key = f"{payment.created_at.astimezone(UTC).isoformat()}|{payment.id}"
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """A cursor's key; 400 for one this service did not make."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment, _, payment_id = raw.partition("|")
        created_at, number = datetime.fromisoformat(moment), int(payment_id)
        created_at = created_at.astimezone(UTC) if created_at.tzinfo else created_at
    except (ValueError, binascii.Error, UnicodeDecodeError, OverflowError):
        raise HTTPError(400, BAD_CURSOR) from None
    if created_at.tzinfo is None or not 0 < number <= INT32_MAX:
        raise HTTPError(400, BAD_CURSOR)
    return created_at, number


async def page(
    app: Starlette, session: AsyncSession, found: Search, page_number: int, per_page: int, cursor: str | None
) -> AdminPaymentListResponse:
    """One page, newest first: after ``cursor`` if given (keyset on ``(created_at, id)``: no
    payment twice or missed however many are made meanwhile), else the ``page_number``-th."""
    total = (await session.exec(select(func.count()).select_from(Payment).where(*found.conditions))).one()
    query = (
        select(Payment, col(User.messenger_id), col(User.username), col(User.email))
        .join(User, col(User.id) == col(Payment.user_id))
        .where(*found.conditions)
        .order_by(*NEWEST_FIRST)
        .limit(per_page + 1)
    )
    if cursor is not None:
        query = query.where(tuple_(col(Payment.created_at), col(Payment.id)) < decode_cursor(cursor))
    else:
        query = query.offset((page_number - 1) * per_page)
    rows = list((await session.exec(query)).all())
    views = Views(app, session)
    items = [await admin_item(views, *row) for row in rows[:per_page]]
    next_cursor = encode_cursor(rows[per_page - 1][0]) if len(rows) > per_page else None
    pages = max(1, math.ceil(total / per_page))
    return AdminPaymentListResponse(
        items=items, total=total, page=page_number, per_page=per_page, pages=pages, next_cursor=next_cursor
    )


async def admin_item(
    views: Views, payment: Payment, messenger_id: int | None, username: str | None, email: str | None
) -> AdminPaymentResponse:
    """A payment with its user, and why it failed if it did."""
    shown = await views.of(payment)
    declined = None if payment.status in (PENDING, SUCCEEDED) else payment.failure_reason
    user = {"user_messenger_id": messenger_id, "user_username": username, "user_email": email}
    return AdminPaymentResponse(**(shown.model_dump() | user), decline_reason=declined)


async def one(app: Starlette, session: AsyncSession, method: str, payment_id: int) -> AdminPaymentResponse:
    """One payment of ``method`` with its user; 404 when unknown or of another method."""
    query = (
        select(Payment, col(User.messenger_id), col(User.username), col(User.email))
        .join(User, col(User.id) == col(Payment.user_id))
        .where(col(Payment.id) == payment_id, col(Payment.provider) == method)
        .execution_options(populate_existing=True)
    )
    row = (await session.exec(query)).first()
    if row is None:
        raise HTTPError(404, PAYMENT_NOT_FOUND)
    return await admin_item(Views(app, session), *row)


async def pending_stats(session: AsyncSession) -> PaymentsStatsResponse:
    """Pending payments per method, one grouped query (index ``(status, created_at, id)``)."""
    query = (
        select(col(Payment.provider), func.count())
        .where(col(Payment.status) == PENDING)
        .group_by(col(Payment.provider))
    )
    by_method = {provider: count for provider, count in (await session.exec(query)).all()}
    return PaymentsStatsResponse(total_pending=sum(by_method.values()), by_method=by_method)


def _group() -> Any:
    """A payment's status group (``pending``, ``paid``, ``cancelled``)."""
    return case(
        (col(Payment.status) == PENDING, "pending"),
        (col(Payment.status) == SUCCEEDED, "paid"),
        else_="cancelled",
    )


def _day(dialect: str) -> Any:
    """The payment's UTC day (SQLite stores UTC wall time; PostgreSQL converts)."""
    if dialect == "sqlite":
        return func.date(col(Payment.created_at))
    return cast(func.timezone("UTC", col(Payment.created_at)), Date)


def _add(figures: Figures, group: str, count: int, asked: int, paid: int) -> None:
    figures.total += count
    setattr(figures, group, getattr(figures, group) + count)
    figures.amount_kopeks += asked
    figures.paid_amount_kopeks += paid


async def search_stats(session: AsyncSession, found: Search) -> SearchStatsResponse:
    """The search's figures: counts by status group and sums (asked, and credited), in all,
    per method and per method and UTC day; one aggregate query."""
    day, group = _day(session.get_bind().dialect.name), _group()
    credited = case((col(Payment.status) == SUCCEEDED, col(Payment.paid_amount_kopeks)), else_=0)
    columns: list[Any] = [col(Payment.provider), day, group, func.count()]
    columns += [func.sum(col(Payment.amount_kopeks)), func.sum(credited)]
    query = select(*columns).where(*found.conditions).group_by(col(Payment.provider), day, group)
    answer = SearchStatsResponse(by_method={})
    days: dict[tuple[str, str], DayFigures] = {}
    for provider, on, status_group, count, asked, paid in (await session.exec(query)).all():
        date = datetime.fromisoformat(str(on)).date()
        per_day = days.setdefault((str(date), provider), DayFigures(date=date, method=provider))
        for target in (answer, answer.by_method.setdefault(provider, Figures()), per_day):
            _add(target, status_group, int(count), int(asked or 0), int(paid or 0))
    answer.by_day = [days[key] for key in sorted(days)]
    return answer

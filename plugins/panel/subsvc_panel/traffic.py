"""Traffic monitoring: each subscribed user's traffic per panel node over a window of days,
with filters, sorting, pages, enrichment figures and a CSV export.

Our users come from our tables (one row per user with a subscription: the current one);
traffic comes from the panel, one call per node (``nodes/usage/{uuid}/users/range``, a few
at a time), matched to our users by account name (``user_<messenger id>``), else through
the panel's account list (by messenger id).
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.db.rows import Rows
from subsvc.panel import GIB
from subsvc.services import services
from subsvc_panel import accounts
from subsvc_panel.client import PanelClient
from subsvc_panel.schemas import (
    SubscriptionEnrichmentInfo,
    SubscriptionTrafficInfo,
    TrafficNodeInfo,
    UserTrafficEnrichment,
    UserTrafficItem,
)
from subsvc_panel.service import as_int

NODE_CALLS_AT_ONCE = 5
LIVE_FIRST = {"active": 0, "trial": 1}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_SORTS = ("full_name", "username", "email", "tariff_name", "subscription_status")
NUMBER_SORTS = ("user_id", "messenger_id", "traffic_limit_gb", "device_limit", "total_bytes")
BAD_DATE = "Dates must be YYYY-MM-DD, the start not after the end"


class BadWindow(ValueError):
    """The dates asked for are not a window (400)."""


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime

    @property
    def days(self) -> int:
        return max(1, (self.end.date() - self.start.date()).days + 1)


def window(period: int, start_date: str | None, end_date: str | None) -> Window:
    """``start_date``..``end_date`` (both days included) when given, else the last ``period`` days."""
    if start_date or end_date:
        try:
            first = date.fromisoformat(start_date) if start_date else None
            last = date.fromisoformat(end_date) if end_date else datetime.now(UTC).date()
        except ValueError:
            raise BadWindow(BAD_DATE) from None
        first = first or last - timedelta(days=period - 1)
        if first > last:
            raise BadWindow(BAD_DATE)
        return Window(datetime.combine(first, time.min, UTC), datetime.combine(last, time.max, UTC))
    end = datetime.now(UTC)
    return Window(datetime.combine(end.date() - timedelta(days=period - 1), time.min, UTC), end)


def split(text: str | None) -> set[str]:
    return {part.strip() for part in (text or "").split(",") if part.strip()}


@dataclass
class Row:
    """One user's line before it is answered: the current subscription and every one the user
    holds (the current first), with the names of the tariffs."""

    user: User
    subscription: Subscription
    tariff_name: str | None
    held: list[Subscription] = field(default_factory=list)
    tariff_names: dict[int, str] = field(default_factory=dict)
    node_traffic: dict[str, int] = field(default_factory=dict)

    def name_of(self, subscription: Subscription) -> str | None:
        return self.tariff_names.get(subscription.tariff_id) if subscription.tariff_id else None

    def traffic_infos(self) -> list[SubscriptionTrafficInfo]:
        return [
            SubscriptionTrafficInfo(
                subscription_id=held.id or 0,
                tariff_name=self.name_of(held),
                status=held.status,
                traffic_limit_gb=float(held.traffic_limit_gb),
                device_limit=held.device_limit,
            )
            for held in self.held
        ]

    def enrichment_infos(self) -> list[SubscriptionEnrichmentInfo]:
        return [
            SubscriptionEnrichmentInfo(
                subscription_id=held.id or 0,
                tariff_name=self.name_of(held),
                start_date=_iso(held.start_date),
                end_date=_iso(held.end_date),
            )
            for held in self.held
        ]

    @property
    def full_name(self) -> str:
        name = " ".join(p for p in (self.user.first_name, self.user.last_name) if p)
        return name or self.user.username or self.user.email or f"User {self.user.id}"

    def item(self, nodes: set[str] | None) -> UserTrafficItem:
        traffic = {k: v for k, v in self.node_traffic.items() if nodes is None or k in nodes}
        assert self.user.id is not None
        return UserTrafficItem(
            user_id=self.user.id,
            messenger_id=self.user.messenger_id,
            username=self.user.username,
            email=self.user.email,
            full_name=self.full_name,
            tariff_name=self.tariff_name,
            subscription_status=self.subscription.status,
            traffic_limit_gb=float(self.subscription.traffic_limit_gb),
            device_limit=self.subscription.device_limit,
            node_traffic=traffic,
            total_bytes=sum(traffic.values()),
            subscriptions=self.traffic_infos(),
        )


async def tariff_names(app: Starlette, session: AsyncSession) -> dict[int, str]:
    """Tariff names by id when the tariffs plugin runs (its table read by name: this plugin
    does not build on it)."""
    if "tariffs" not in {info.name for info in services(app).plugins.enabled}:
        return {}
    table = SQLModel.metadata.tables.get("tariffs")
    if table is None:
        return {}
    found = await session.exec(Rows(table.c.id, table.c.name))
    return {int(row[0]): str(row[1]) for row in found}


async def subscribed_users(app: Starlette, session: AsyncSession) -> list[Row]:
    """Every user with a subscription, with the current one (active, then trial, then the
    one that ends last) and all of theirs in that order."""
    query = select(Subscription, User).join(User, col(User.id) == col(Subscription.user_id))
    found = (await session.exec(query)).all()
    names = await tariff_names(app, session)
    users: dict[int, User] = {}
    held: dict[int, list[Subscription]] = {}
    for subscription, user in found:
        users[subscription.user_id] = user  # the user's id (the join)
        held.setdefault(subscription.user_id, []).append(subscription)
    rows = []
    for user_id, subscriptions in held.items():
        subscriptions.sort(key=_rank)
        current = subscriptions[0]
        name = names.get(current.tariff_id) if current.tariff_id else None
        rows.append(Row(users[user_id], current, name, subscriptions, names))
    return rows


def _rank(subscription: Subscription) -> tuple[int, float, int]:
    end = (
        subscription.end_date.replace(tzinfo=UTC)
        if subscription.end_date.tzinfo is None
        else subscription.end_date
    )
    return (LIVE_FIRST.get(subscription.status, 2), -end.timestamp(), -(subscription.id or 0))


async def node_traffic(
    panel: PanelClient, rows: Sequence[Row], span: Window
) -> tuple[list[TrafficNodeInfo], dict[int, dict[str, int]]]:
    """The panel's nodes and each of our users' bytes per node in the window."""
    nodes = await panel.nodes()
    gate = asyncio.Semaphore(NODE_CALLS_AT_ONCE)

    async def usage(node_uuid: str) -> list[dict[str, Any]]:
        async with gate:
            return await panel.node_users_usage(node_uuid, span.start, span.end)

    uuids = [str(n.get("uuid") or "") for n in nodes]
    per_node = await asyncio.gather(*(usage(u) for u in uuids))
    by_name = {accounts.username_for(row.user): row.user.id for row in rows}
    account_owner: dict[str, int | None] = {}
    unmatched: list[tuple[str, str, int]] = []
    traffic: dict[int, dict[str, int]] = {}
    for node_uuid, found in zip(uuids, per_node, strict=True):
        for entry in found:
            account = str(entry.get("userUuid") or "")
            owner = by_name.get(str(entry.get("username") or ""))
            total = as_int(entry.get("total", entry.get("totalBytes")))
            if owner is None:
                unmatched.append((account, node_uuid, total))
                continue
            account_owner[account] = owner
            user_traffic = traffic.setdefault(owner, {})
            user_traffic[node_uuid] = user_traffic.get(node_uuid, 0) + total
    if unmatched:
        by_messenger = {
            row.user.messenger_id: row.user.id for row in rows if row.user.messenger_id is not None
        }
        for listed in await panel.all_users():
            messenger_id = listed.get("telegramId")
            owner = by_messenger.get(messenger_id) if isinstance(messenger_id, int) else None
            account_owner.setdefault(str(listed.get("uuid")), owner)
        for account, node_uuid, total in unmatched:
            owner = account_owner.get(account)
            if owner is not None:
                user_traffic = traffic.setdefault(owner, {})
                user_traffic[node_uuid] = user_traffic.get(node_uuid, 0) + total
    infos = [
        TrafficNodeInfo(
            node_uuid=str(n.get("uuid") or ""),
            node_name=str(n.get("name") or ""),
            country_code=str(n.get("countryCode") or ""),
        )
        for n in nodes
    ]
    return infos, traffic


@dataclass(frozen=True)
class Filters:
    search: str = ""
    tariffs: frozenset[str] = frozenset()
    statuses: frozenset[str] = frozenset()
    nodes: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, tariffs: str | None, statuses: str | None, nodes: str | None, search: str = "") -> Filters:
        """Filters from comma lists (tariff names, statuses, node uuids) and a search text."""
        return cls(
            search=search.strip(),
            tariffs=frozenset(split(tariffs)),
            statuses=frozenset(split(statuses)),
            nodes=frozenset(split(nodes)),
        )

    def keeps(self, row: Row) -> bool:
        if self.tariffs and (row.tariff_name or "") not in self.tariffs:
            return False
        if self.statuses and row.subscription.status not in self.statuses:
            return False
        if self.search:
            needle = self.search.lower()
            user = row.user
            haystack = (row.full_name, user.username, user.email, str(user.messenger_id or ""), str(user.id))
            return any(needle in (text or "").lower() for text in haystack)
        return True


@dataclass
class Report:
    items: list[UserTrafficItem]
    nodes: list[TrafficNodeInfo]
    tariffs: list[str]
    statuses: list[str]
    window: Window


async def report(
    app: Starlette, session: AsyncSession, panel: PanelClient, span: Window, filters: Filters
) -> Report:
    """Every matching user's line (unsorted), the nodes and what the filters may choose from."""
    rows = await subscribed_users(app, session)
    nodes, traffic = await node_traffic(panel, rows, span)
    chosen = set(filters.nodes) or None
    items = []
    for row in rows:
        assert row.user.id is not None
        row.node_traffic = traffic.get(row.user.id, {})
        if filters.keeps(row):
            items.append(row.item(chosen))
    return Report(
        items=items,
        nodes=[n for n in nodes if chosen is None or n.node_uuid in chosen],
        tariffs=sorted({r.tariff_name for r in rows if r.tariff_name}),
        statuses=sorted({r.subscription.status for r in rows}),
        window=span,
    )


def sort(items: list[UserTrafficItem], sort_by: str, descending: bool) -> list[UserTrafficItem]:
    """By a field, or by one node's bytes when ``sort_by`` is a node uuid; ties by user id."""
    if sort_by in TEXT_SORTS:
        return sorted(
            items, key=lambda i: ((getattr(i, sort_by) or "").lower(), i.user_id), reverse=descending
        )
    if sort_by in NUMBER_SORTS:
        return sorted(items, key=lambda i: (getattr(i, sort_by) or 0, i.user_id), reverse=descending)
    return sorted(items, key=lambda i: (i.node_traffic.get(sort_by, 0), i.user_id), reverse=descending)


# --- enrichment ------------------------------------------------------------------------------


async def total_spent(app: Starlette, session: AsyncSession) -> dict[int, int]:
    """Kopeks each user paid for subscriptions, when the billing plugin runs."""
    if "billing" not in {info.name for info in services(app).plugins.enabled}:
        return {}
    table = SQLModel.metadata.tables.get("transactions")
    if table is None:
        return {}
    query = (
        Rows(table.c.user_id, sa.func.sum(table.c.amount_kopeks))
        .where(table.c.type == "subscription_payment", table.c.is_completed)
        .group_by(table.c.user_id)
    )
    return {int(user_id): abs(int(total or 0)) for user_id, total in await session.exec(query)}


async def enrichment(
    app: Starlette, session: AsyncSession, panel: PanelClient
) -> dict[str, UserTrafficEnrichment]:
    """Per user id: devices connected, kopeks spent, subscription dates, last node."""
    rows = await subscribed_users(app, session)
    spent = await total_spent(app, session)
    all_accounts, devices = await asyncio.gather(panel.all_users(), panel.all_devices())
    device_counts: dict[str, int] = {}
    for device in devices:
        owner = str(device.get("userUuid") or "")
        device_counts[owner] = device_counts.get(owner, 0) + 1
    by_messenger: dict[Any, dict[str, Any]] = {}
    by_name: dict[Any, dict[str, Any]] = {}
    for listed in all_accounts:
        by_messenger.setdefault(listed.get("telegramId"), listed)
        by_name.setdefault(listed.get("username"), listed)
    data: dict[str, UserTrafficEnrichment] = {}
    for row in rows:
        user = row.user
        assert user.id is not None
        account: dict[str, Any] | None = by_name.get(accounts.username_for(user)) or (
            by_messenger.get(user.messenger_id) if user.messenger_id is not None else None
        )
        node = account.get("lastConnectedNode") if account else None
        data[str(user.id)] = UserTrafficEnrichment(
            devices_connected=device_counts.get(str(account.get("uuid")), 0) if account else 0,
            total_spent_kopeks=spent.get(user.id, 0),
            subscription_start_date=_iso(row.subscription.start_date),
            subscription_end_date=_iso(row.subscription.end_date),
            last_node_name=node.get("nodeName") if isinstance(node, dict) else None,
            subscriptions=row.enrichment_infos(),
        )
    return data


def _iso(moment: datetime) -> str:
    return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).isoformat()


# --- CSV -------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """A cell a spreadsheet will not run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _gb(count: int) -> float:
    return round(count / GIB, 3)


def csv_text(found: Report, total_threshold_gb: float | None, node_threshold_gb: float | None) -> str:
    """The report as CSV: one line per user, a GB column per node, the GB per day, and a risk
    column when a threshold (GB a day, in total or on one node) is exceeded."""
    days = found.window.days
    out = io.StringIO()
    writer = csv.writer(out)
    header = ["user_id", "messenger_id", "username", "email", "full_name", "tariff", "status"]
    header += ["traffic_limit_gb", "device_limit", *(f"{n.node_name} (GB)" for n in found.nodes)]
    header += ["total_gb", "gb_per_day", "risk"]
    writer.writerow([_cell(h) for h in header])
    for item in sort(found.items, "total_bytes", True):
        per_day = item.total_bytes / GIB / days
        risks = []
        if total_threshold_gb is not None and per_day > total_threshold_gb:
            risks.append("total")
        if node_threshold_gb is not None:
            risks += [
                n.node_name
                for n in found.nodes
                if item.node_traffic.get(n.node_uuid, 0) / GIB / days > node_threshold_gb
            ]
        line: list[Any] = [
            item.user_id,
            item.messenger_id or "",
            item.username or "",
            item.email or "",
            item.full_name,
        ]
        line += [
            item.tariff_name or "",
            item.subscription_status or "",
            item.traffic_limit_gb,
            item.device_limit,
        ]
        line += [_gb(item.node_traffic.get(n.node_uuid, 0)) for n in found.nodes]
        line += [_gb(item.total_bytes), round(per_day, 3), ", ".join(risks)]
        writer.writerow([_cell(value) for value in line])
    return out.getvalue()

"""A segment's recipients: resolved once, read in pages by ascending user id (keyset), counted,
or handed over as a query of user ids (for ``INSERT ... SELECT``).

Usage::

    segment = resolve(app, "expired")            # None: unknown target (no recipients)
    async for page in iter_recipients(app, segment, reachable=True):
        for recipient in page: ...               # user_id, messenger_id, email, ...

``reachable=True`` keeps only users the bot can write to: with a messenger id, and not known
to have blocked the bot in the last ``SEGMENTS_BLOCKED_SKIP_DAYS`` days.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, Select, bindparam, func
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar
from starlette.applications import Starlette

from subsvc.db import UTCDateTime, utcnow
from subsvc.db.rows import Rows
from subsvc.services import services
from subsvc_segments.catalogue import TARIFF, USERS, Definition, merged, normalize, tariff_id_of
from subsvc_segments.settings import SegmentSettings

AFTER = bindparam("after", type_=sa.Integer())
LIMIT = bindparam("limit", type_=sa.Integer())
BLOCKED_BEFORE = bindparam("blocked_before", type_=UTCDateTime())
COLUMNS = (
    USERS.c.id,
    USERS.c.messenger_id,
    USERS.c.email,
    USERS.c.email_verified,
    USERS.c.language,
    USERS.c.first_name,
    USERS.c.username,
    USERS.c.messenger_blocked_at,
)


@dataclass(frozen=True, slots=True)
class Recipient:
    """A user of a segment, with what a sender needs."""

    user_id: int
    messenger_id: int | None
    email: str | None
    email_verified: bool
    language: str
    first_name: str | None
    username: str | None
    messenger_blocked_at: datetime | None


@dataclass(frozen=True)
class Segment:
    """A resolved segment: its name, its definition and the bind values fixed at ``now``, so
    every page of one walk sees the same moment."""

    name: str
    definition: Definition
    params: Mapping[str, Any]
    now: datetime


def catalogue(app: Starlette) -> dict[str, Definition]:
    """Every segment the app knows: the built-in ones and those of ``segment_definitions``."""
    known: dict[str, Definition] | None = getattr(app.state, "segments", None)
    if known is None:
        known = merged(list(services(app).plugins.hook.segment_definitions()))
        app.state.segments = known
    return known


def resolve(app: Starlette, target: str | None, now: datetime | None = None) -> Segment | None:
    """The segment ``target`` names (aliases and case allowed), or ``None`` when it names none:
    the reference then selects nobody."""
    name = normalize(target)
    if name is None:
        return None
    now = now or utcnow()
    definition = catalogue(app).get(name)
    if definition is not None:
        return Segment(name, definition, definition.params(now), now)
    tariff_id = tariff_id_of(name)
    if tariff_id is None:
        return None
    return Segment(name, TARIFF, {**TARIFF.params(now), "tariff_id": tariff_id}, now)


def segment_names(app: Starlette) -> list[str]:
    """The names :func:`resolve` accepts, besides ``tariff_<id>`` and the aliases."""
    return list(catalogue(app))


def _settings(app: Starlette) -> SegmentSettings:
    return SegmentSettings.of(app)


def _conditions(definition: Definition, reachable: bool) -> list[ColumnElement[bool]]:
    conditions = [USERS.c.status == "active", definition.condition]
    if reachable:
        conditions.append(USERS.c.messenger_id.is_not(None))
    return conditions


def _not_blocked() -> ColumnElement[bool]:
    return sa.or_(USERS.c.messenger_blocked_at.is_(None), USERS.c.messenger_blocked_at < BLOCKED_BEFORE)


@functools.cache
def _page(definition: Definition, reachable: bool, skip_blocked: bool) -> Rows:
    query = Rows(*COLUMNS).where(*_conditions(definition, reachable), USERS.c.id > AFTER)
    if skip_blocked:
        query = query.where(_not_blocked())
    return query.order_by(USERS.c.id).limit(LIMIT)


@functools.cache
def _count(definition: Definition, reachable: bool, skip_blocked: bool) -> SelectOfScalar[int]:
    query = select(func.count()).select_from(USERS).where(*_conditions(definition, reachable))
    return query.where(_not_blocked()) if skip_blocked else query


def _params(app: Starlette, segment: Segment, reachable: bool) -> tuple[dict[str, Any], bool]:
    params = dict(segment.params)
    days = _settings(app).SEGMENTS_BLOCKED_SKIP_DAYS
    skip_blocked = reachable and days > 0
    if skip_blocked:
        params["blocked_before"] = segment.now - timedelta(days=days)
    return params, skip_blocked


async def iter_recipients(
    app: Starlette,
    segment: Segment,
    *,
    reachable: bool = False,
    session: AsyncSession | None = None,
    page_size: int | None = None,
) -> AsyncIterator[list[Recipient]]:
    """The segment's users in pages (ascending id; never an empty page). Each page is one
    indexed query; without ``session`` each opens its own short read-only session, so a long
    broadcast holds no connection between pages."""
    params, skip_blocked = _params(app, segment, reachable)
    params["limit"] = page_size or _settings(app).SEGMENTS_PAGE_SIZE
    query = _page(segment.definition, reachable, skip_blocked)
    after = 0
    while True:
        params["after"] = after
        if session is not None:
            rows = (await session.exec(query, params=params)).all()
        else:
            async with services(app).db.session(read_only=True) as own:
                rows = (await own.exec(query, params=params)).all()
        if not rows:
            return
        yield [Recipient(*row) for row in rows]
        if len(rows) < params["limit"]:
            return
        after = rows[-1][0]


async def recipients(
    app: Starlette, segment: Segment, *, reachable: bool = False, session: AsyncSession | None = None
) -> list[Recipient]:
    """Every recipient at once (for small segments; prefer :func:`iter_recipients`)."""
    return [
        r async for page in iter_recipients(app, segment, reachable=reachable, session=session) for r in page
    ]


async def count_recipients(
    app: Starlette, segment: Segment, *, reachable: bool = False, session: AsyncSession | None = None
) -> int:
    """How many users the segment holds now (one COUNT)."""
    params, skip_blocked = _params(app, segment, reachable)
    query = _count(segment.definition, reachable, skip_blocked)
    if session is not None:
        return (await session.exec(query, params=params)).one()
    async with services(app).db.session(read_only=True) as own:
        return (await own.exec(query, params=params)).one()


def reachable_conditions(app: Starlette, now: datetime | None = None) -> list[ColumnElement[bool]]:
    """The rule of ``reachable=True`` as conditions on ``users`` with their values bound, for a
    query that reaches users some other way (e.g. offers joined to their users): a messenger
    id, and no refusal of the bot seen within ``SEGMENTS_BLOCKED_SKIP_DAYS`` of ``now``."""
    conditions: list[ColumnElement[bool]] = [USERS.c.messenger_id.is_not(None)]
    days = _settings(app).SEGMENTS_BLOCKED_SKIP_DAYS
    if days > 0:
        before = (now or utcnow()) - timedelta(days=days)
        bound = bindparam("blocked_before", before, type_=UTCDateTime(), unique=True)
        conditions.append(
            sa.or_(USERS.c.messenger_blocked_at.is_(None), USERS.c.messenger_blocked_at < bound)
        )
    return conditions


def user_ids_query(app: Starlette, segment: Segment, *, reachable: bool = False) -> Select[Any]:
    """``SELECT users.id`` of the segment with its values bound: to insert rows for every
    recipient in one statement (``insert(...).from_select([...], query)``)."""
    params, skip_blocked = _params(app, segment, reachable)
    query = sa.select(USERS.c.id).where(*_conditions(segment.definition, reachable))
    if skip_blocked:
        query = query.where(_not_blocked())
    return query.params(**params)

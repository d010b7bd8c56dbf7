"""The rules of users (no HTTP here): the searchable list, creation, changes, and the members
of promo groups.

Lists are ordered newest first (``created_at``, then ``id``, descending), which the
``(…, created_at, id)`` indexes serve with a LIMIT. The search text matches, case-insensitively,
anywhere in the username, first name, last name or referral code (trigram indexes on
PostgreSQL), or, when it is all digits, a messenger id or an internal id exactly.
"""

from __future__ import annotations

import functools
import secrets
import string
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Select, bindparam, func, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar
from starlette.applications import Starlette
from subsvc_promo_groups.api import ensure_default_group, find_group

from subsvc.api import INT32_MAX, INT64_MAX
from subsvc.db import DriverSelect, utcnow
from subsvc.services import services
from subsvc_users.counts import CountCache, count_cache
from subsvc_users.models import USER_STATUSES, User
from subsvc_users.records import USERS, Columns, record_select
from subsvc_users.schemas import UserCreatedPayload, UserCreateRequest, UserUpdateRequest

REFERRAL_PREFIX = "ref"
REFERRAL_ALPHABET = string.ascii_letters + string.digits
REFERRAL_LENGTH = 8
REFERRAL_ATTEMPTS = 10
SEARCHED_COLUMNS = ("username", "first_name", "last_name", "referral_code")
NEWEST_FIRST = (USERS.c.created_at.desc(), USERS.c.id.desc())

DUPLICATE_MESSENGER_ID = "User with this messenger_id already exists"
PROMO_GROUP_NOT_FOUND = "Promo group not found"
REFERRER_NOT_FOUND = "Referrer not found"
INVALID_STATUS = "Invalid status"
REFERRAL_CODE_IN_USE = "Referral code already in use"


class UserRuleError(ValueError):
    """A request the rules refuse; the text is the answer's ``detail`` (status 400)."""


def new_referral_code() -> str:
    """``ref`` and 8 random letters or digits (62^8 possibilities)."""
    return REFERRAL_PREFIX + "".join(secrets.choice(REFERRAL_ALPHABET) for _ in range(REFERRAL_LENGTH))


# --- the list ----------------------------------------------------------------------------------


def _like_pattern(text: str) -> str:
    """``%text%`` with LIKE's wildcards in ``text`` taken literally (escape character ``\\``)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def search_condition(text: str) -> ColumnElement[bool]:
    """Contains ``text`` (any case) in a searched column, or, for digits, is that messenger id
    or internal id."""
    # The pattern is written into the SQL, not sent as a parameter: PostgreSQL then plans
    # each search for its own text (trigram indexes), instead of reusing a generic plan that
    # walks the newest-first index and tests every row.
    pattern: BindParameter[str] = bindparam("search_pattern", _like_pattern(text), literal_execute=True)
    conditions: list[ColumnElement[bool]] = [
        getattr(User, name).ilike(pattern, escape="\\") for name in SEARCHED_COLUMNS
    ]
    if text.isascii() and text.isdigit():
        number = int(text)
        if number <= INT64_MAX:
            conditions.append(col(User.messenger_id) == number)
        if number <= INT32_MAX:
            conditions.append(col(User.id) == number)
    return or_(*conditions)


def filters(
    status: str | None = None, promo_group_id: int | None = None, search: str | None = None
) -> list[ColumnElement[bool]]:
    """The WHERE conditions of a list filter (``search`` already stripped; empty = none)."""
    conditions: list[ColumnElement[bool]] = []
    if status is not None:
        conditions.append(col(User.status) == status)
    if promo_group_id is not None:
        conditions.append(col(User.promo_group_id) == promo_group_id)
    if search:
        conditions.append(search_condition(search))
    return conditions


def _filter_key(
    status: str | None = None, promo_group_id: int | None = None, search: str | None = None
) -> tuple[str | None, int | None, str | None]:
    return status, promo_group_id, search


def count_query(conditions: Sequence[ColumnElement[bool]]) -> SelectOfScalar[int]:
    return select(func.count()).select_from(User).where(*conditions)


def page_query(
    conditions: Sequence[ColumnElement[bool]], limit: Any, offset: Any, columns: Columns = ()
) -> Select[Any]:
    """Record rows (:func:`~subsvc_users.records.record_select`, with ``columns``), newest
    first; the ``(…, created_at, id)`` indexes give this order with a LIMIT."""
    records = record_select(columns=columns)
    return records.where(*conditions).order_by(*NEWEST_FIRST).offset(offset).limit(limit)


@functools.cache
def _listing(by_status: bool, by_promo_group: bool, columns: Columns) -> DriverSelect:
    """The page statement of a filter without search text, its values as parameters: built
    (and compiled) once, not per request."""
    conditions = []
    if by_status:
        conditions.append(USERS.c.status == bindparam("status"))
    if by_promo_group:
        conditions.append(USERS.c.promo_group_id == bindparam("promo_group_id"))
    return DriverSelect(page_query(conditions, bindparam("limit"), bindparam("offset"), columns))


async def list_users(
    session: AsyncSession,
    counts: CountCache,
    *,
    status: str | None = None,
    promo_group_id: int | None = None,
    search: str | None = None,
    limit: int = 50,
    offset: int = 0,
    columns: Columns = (),
) -> tuple[int, Sequence[Mapping[str, Any]]]:
    """The total of the filter (exact; see :mod:`subsvc_users.counts`) and one page of it as
    record rows with ``columns`` (for :func:`~subsvc_users.records.records_from_rows`)."""
    search = (search or "").strip() or None
    conditions = filters(status, promo_group_id, search)
    key = _filter_key(status, promo_group_id, search)

    async def count() -> int:
        return (await session.exec(count_query(conditions))).one()

    total = await counts.total(key, count)
    if offset > INT64_MAX - limit:  # no row is that far; the database would refuse the number
        return total, []
    if search:  # a statement of its own, the pattern written into it
        connection = await session.connection()
        result = await connection.execute(page_query(conditions, limit, offset, columns))
        return total, result.mappings().all()
    parameters = {"status": status, "promo_group_id": promo_group_id, "limit": limit, "offset": offset}
    listing = _listing(status is not None, promo_group_id is not None, columns)
    return total, await listing.mappings(session, parameters)


# --- creation and changes ----------------------------------------------------------------------


def _insert(session: AsyncSession) -> Any:
    dialect = session.get_bind().dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(User)


def _integrity_error(exc: IntegrityError) -> UserRuleError | None:
    """The rule a constraint violation stands for (a concurrent request won the race)."""
    message = str(exc.orig).lower()
    if "messenger_id" in message:
        return UserRuleError(DUPLICATE_MESSENGER_ID)
    if "referral_code" in message:
        return UserRuleError(REFERRAL_CODE_IN_USE)
    if "referred_by" in message:
        return UserRuleError(REFERRER_NOT_FOUND)
    if "foreign key" in message:
        return UserRuleError(PROMO_GROUP_NOT_FOUND)
    return None


async def _exists(session: AsyncSession, condition: ColumnElement[bool]) -> bool:
    return (await session.exec(select(col(User.id)).where(condition).limit(1))).first() is not None


async def create_user(app: Starlette, session: AsyncSession, data: UserCreateRequest) -> User:
    """Add a user (in the given promo group, else the default one, created when missing) with
    a fresh unique referral code, and publish ``user.created`` in the same transaction. A
    ``start_parameter`` that is a user's referral code makes that user the referrer (unless
    ``referred_by_id`` names one); the event carries the parameter (campaign attribution)."""
    if data.messenger_id is not None and await _exists(session, col(User.messenger_id) == data.messenger_id):
        raise UserRuleError(DUPLICATE_MESSENGER_ID)
    if data.promo_group_id is not None:
        group = await find_group(session, data.promo_group_id)
        if group is None:
            raise UserRuleError(PROMO_GROUP_NOT_FOUND)
    else:
        group = await ensure_default_group(session)
    referred_by_id = data.referred_by_id
    if referred_by_id is not None and not await _exists(session, col(User.id) == referred_by_id):
        raise UserRuleError(REFERRER_NOT_FOUND)
    if referred_by_id is None and data.start_parameter is not None:
        by_code = select(col(User.id)).where(col(User.referral_code) == data.start_parameter)
        referred_by_id = (await session.exec(by_code)).first()
    now = utcnow()
    values = {
        **data.model_dump(exclude={"promo_group_id", "start_parameter", "referred_by_id"}),
        "referred_by_id": referred_by_id,
        "promo_group_id": group.id,
        "status": "active",
        "balance_kopeks": 0,
        "has_had_paid_subscription": False,
        "has_made_first_topup": False,
        "created_at": now,
        "updated_at": now,
    }
    user: User | None = None
    for _ in range(REFERRAL_ATTEMPTS):
        # a taken code inserts nothing (and returns no row): try another one
        statement = (
            _insert(session)
            .values(**values, referral_code=new_referral_code())
            .on_conflict_do_nothing(index_elements=["referral_code"])
            .returning(User)
        )
        try:
            user = (await session.exec(statement)).scalars().first()
        except IntegrityError as exc:
            raise _integrity_error(exc) or exc from exc
        if user is not None:
            break
    if user is None:
        raise RuntimeError(f"no free referral code after {REFERRAL_ATTEMPTS} attempts")
    assert user.id is not None
    payload = UserCreatedPayload(
        user_id=user.id, start_parameter=data.start_parameter, **user.model_dump(exclude={"id"})
    )
    services(app).events.publish(session, "user.created", payload)
    count_cache(app).invalidate_on_commit(session)
    return user


async def update_user(app: Starlette, session: AsyncSession, user: User, data: UserUpdateRequest) -> User:
    """Change the given fields (null or absent: unchanged). Any given field moves
    ``updated_at``; an empty change returns the user as it is."""
    changes = data.model_dump(exclude_none=True)
    if not changes:
        return user
    if "status" in changes and changes["status"] not in USER_STATUSES:
        raise UserRuleError(INVALID_STATUS)
    if "promo_group_id" in changes and await find_group(session, changes["promo_group_id"]) is None:
        raise UserRuleError(PROMO_GROUP_NOT_FOUND)
    code = changes.get("referral_code")
    if code is not None and code != user.referral_code:
        taken = (col(User.referral_code) == code) & (col(User.id) != user.id)
        if await _exists(session, taken):
            raise UserRuleError(REFERRAL_CODE_IN_USE)
    for name, value in changes.items():
        setattr(user, name, value)
    user.updated_at = utcnow()
    try:
        await session.flush()
    except IntegrityError as exc:
        raise _integrity_error(exc) or exc from exc
    count_cache(app).invalidate_on_commit(session)
    return user


REFERRER_IS_SELF = "A user cannot be their own referrer"
REFERRER_CYCLE = "The referrer was referred by this user (directly or through others)"


async def set_referrer(
    app: Starlette, session: AsyncSession, user: User, referrer: User | None
) -> int | None:
    """Make ``referrer`` the user's referrer (``None``: the user has none); returns the
    previous referrer's id. The caller holds the user's row lock. A referrer that is the user,
    or that the user referred (directly or up a chain), is refused (:class:`UserRuleError`)."""
    old = user.referred_by_id
    if referrer is not None:
        assert referrer.id is not None
        if referrer.id == user.id:
            raise UserRuleError(REFERRER_IS_SELF)
        seen: set[int] = set()
        above: int | None = referrer.referred_by_id
        while above is not None and above not in seen:
            if above == user.id:
                raise UserRuleError(REFERRER_CYCLE)
            seen.add(above)
            above = (
                await session.exec(select(col(User.referred_by_id)).where(col(User.id) == above))
            ).first()
    new = referrer.id if referrer is not None else None
    if new != old:
        user.referred_by_id = new
        user.updated_at = utcnow()
        await session.flush()
        count_cache(app).invalidate_on_commit(session)
    return old


# --- promo group members (the promo_groups plugin's hooks) ---------------------------------------


async def member_counts(
    session: AsyncSession, counts: CountCache, group_ids: Sequence[int]
) -> dict[int, int]:
    """Users per promo group: the figures of ``GET /users?promo_group_id=…`` when kept (same
    cache keys), the others counted in one grouped query."""
    found: dict[int, int] = {}
    missing: list[int] = []
    for group_id in group_ids:
        total = counts.get(_filter_key(promo_group_id=group_id))
        if total is None:
            missing.append(group_id)
        else:
            found[group_id] = total
    if missing:
        generation = counts.generation
        query = (
            select(col(User.promo_group_id), func.count())
            .where(col(User.promo_group_id).in_(missing))
            .group_by(col(User.promo_group_id))
        )
        counted = {group_id: total for group_id, total in (await session.exec(query)).all() if group_id}
        for group_id in missing:
            found[group_id] = counted.get(group_id, 0)
            counts.put(_filter_key(promo_group_id=group_id), found[group_id], generation)
    return found


async def move_members(app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int) -> None:
    """Move a promo group's users to another group (before the group is deleted)."""
    statement = (
        update(User)
        .where(col(User.promo_group_id) == group_id)
        .values(promo_group_id=fallback_group_id, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    await session.exec(statement)
    count_cache(app).invalidate_on_commit(session)


def record_paid_subscription(session: AsyncSession, user: User, at: datetime) -> None:
    """The user has bought a subscription (first-purchase-only offers no longer apply); once
    set, the flag stays."""
    if not user.has_had_paid_subscription:
        user.has_had_paid_subscription = True
        user.updated_at = at
        session.add(user)


async def delete_user(app: Starlette, session: AsyncSession, user: User) -> None:
    """Remove the user's row; the rows referring to it go by their foreign keys' rules.
    :class:`~sqlalchemy.exc.IntegrityError` when a row with no such rule still refers to it
    (the caller says what that means). Every ``user_deleting`` implementation is called first,
    in the same transaction. The cached counts are dropped on commit."""
    await services(app).plugins.call_all("user_deleting", session=session, user_id=user.id)
    await session.delete(user)
    await session.flush()
    count_cache(app).invalidate_on_commit(session)

"""The rules of promo groups (no HTTP here).

Exactly one group is the default (the group of new users) once any group exists: the first
group created becomes it, making another group the default takes the flag from the previous
one, and unsetting it on the default group hands it to the oldest other group. A partial
unique index backs this in the database; on PostgreSQL the changes that touch the flag are
serialised with a transaction-level advisory lock, so concurrent requests cannot both see
"no default" and both create one. The default group cannot be deleted; deleting another
group first moves its members to the default group (through the ``promo_group_deleting``
hook, implemented by the plugins whose rows point at groups).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import INT32_MAX
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_promo_groups.models import PromoGroup
from subsvc_promo_groups.schemas import PromoGroupCreateRequest, PromoGroupUpdateRequest

DEFAULT_GROUP_NAME = "Базовый юзер"
# pg_advisory_xact_lock key of "the default promo group may change" (any constant will do)
_DEFAULT_GROUP_LOCK = 0x5375_6273_5047_4446


class PromoGroupNotFound(LookupError):
    """No promo group has the id."""


class DuplicateGroupName(ValueError):
    """Another promo group has the name."""


class DefaultGroupProtected(ValueError):
    """The default group cannot be deleted."""


class GroupInUse(ValueError):
    """Rows of a plugin that does not implement ``promo_group_deleting`` still point at the group."""


async def _lock_default_changes(session: AsyncSession) -> None:
    """Serialise the transactions that may change which group is the default (PostgreSQL;
    SQLite runs one writer at a time anyway). Held until the transaction ends; re-entrant."""
    if session.get_bind().dialect.name == "postgresql":
        await session.exec(select(func.pg_advisory_xact_lock(_DEFAULT_GROUP_LOCK)))


# --- reads -------------------------------------------------------------------------------------


async def find_group(session: AsyncSession, group_id: int, *, for_update: bool = False) -> PromoGroup | None:
    """The group with this id (``None`` for ids no row can have)."""
    if not 1 <= group_id <= INT32_MAX:
        return None
    query = select(PromoGroup).where(col(PromoGroup.id) == group_id)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


async def get_group(session: AsyncSession, group_id: int, *, for_update: bool = False) -> PromoGroup:
    group = await find_group(session, group_id, for_update=for_update)
    if group is None:
        raise PromoGroupNotFound(group_id)
    return group


async def get_default_group(session: AsyncSession) -> PromoGroup | None:
    return (await session.exec(select(PromoGroup).where(col(PromoGroup.is_default)).limit(1))).first()


async def ensure_default_group(session: AsyncSession) -> PromoGroup:
    """The default group, created (named :data:`DEFAULT_GROUP_NAME`, no discounts) when no
    group is the default. One indexed read when it exists."""
    group = await get_default_group(session)
    if group is not None:
        return group
    await _lock_default_changes(session)
    group = await get_default_group(session)  # created meanwhile by the lock's previous holder?
    if group is not None:
        return group
    query = select(PromoGroup).where(col(PromoGroup.name) == DEFAULT_GROUP_NAME)
    group = (await session.exec(query)).first()
    if group is None:
        now = utcnow()
        group = PromoGroup(name=DEFAULT_GROUP_NAME, is_default=True, created_at=now, updated_at=now)
    else:  # a group of that name exists but lost the flag: it gets it back
        group.is_default = True
        group.updated_at = utcnow()
    try:
        async with session.begin_nested():
            session.add(group)
    except IntegrityError:  # SQLite: a concurrent transaction made the default and committed first
        made = await get_default_group(session)
        if made is None:
            raise
        return made
    return group


async def list_groups(session: AsyncSession, limit: int, offset: int) -> tuple[int, list[PromoGroup]]:
    """How many groups there are, and one page of them: highest priority first, then by name."""
    total = (await session.exec(select(func.count()).select_from(PromoGroup))).one()
    query = (
        select(PromoGroup)
        .order_by(col(PromoGroup.priority).desc(), col(PromoGroup.name), col(PromoGroup.id))
        .offset(offset)
        .limit(limit)
    )
    return total, list((await session.exec(query)).all())


async def member_counts(app: Starlette, session: AsyncSession, group_ids: Sequence[int]) -> dict[int, int]:
    """Members per group for a page of groups: one call of the ``promo_group_member_counts``
    hook (each implementation counts in one grouped query)."""
    counts = dict.fromkeys(group_ids, 0)
    if not group_ids:
        return counts
    parts = await services(app).plugins.call_all(
        "promo_group_member_counts", app=app, session=session, group_ids=list(group_ids)
    )
    for part in parts:
        for group_id, count in part.items():
            if group_id in counts:
                counts[group_id] += count
    return counts


# --- writes ------------------------------------------------------------------------------------


async def _ensure_name_free(session: AsyncSession, name: str, group_id: int | None = None) -> None:
    query = select(col(PromoGroup.id)).where(col(PromoGroup.name) == name)
    if group_id is not None:
        query = query.where(col(PromoGroup.id) != group_id)
    if (await session.exec(query.limit(1))).first() is not None:
        raise DuplicateGroupName(name)


async def _flush(session: AsyncSession, name: str) -> None:
    """Flush; a unique-name violation (a concurrent request took the name) -> DuplicateGroupName."""
    try:
        await session.flush()
    except IntegrityError as exc:
        if "name" in str(exc.orig):
            raise DuplicateGroupName(name) from exc
        raise


def _periods(periods: dict[int, int]) -> dict[str, int]:
    return {str(days): percent for days, percent in sorted(periods.items())}


async def create_group(session: AsyncSession, data: PromoGroupCreateRequest) -> PromoGroup:
    """Add a group; it becomes the default when asked to or when there is no default yet."""
    await _ensure_name_free(session, data.name)
    await _lock_default_changes(session)
    current = await get_default_group(session)
    make_default = data.is_default or current is None
    now = utcnow()
    if make_default and current is not None:
        current.is_default = False
        current.updated_at = now
        await session.flush()
    group = PromoGroup(
        name=data.name,
        priority=data.priority,
        server_discount_percent=data.server_discount_percent,
        traffic_discount_percent=data.traffic_discount_percent,
        device_discount_percent=data.device_discount_percent,
        period_discounts=_periods(data.period_discounts or {}),
        auto_assign_total_spent_kopeks=data.auto_assign_total_spent_kopeks or None,
        apply_discounts_to_addons=data.apply_discounts_to_addons,
        is_default=make_default,
        created_at=now,
        updated_at=now,
    )
    session.add(group)
    await _flush(session, data.name)
    return group


async def update_group(session: AsyncSession, group_id: int, data: PromoGroupUpdateRequest) -> PromoGroup:
    """Change the given fields (null or absent: unchanged); ``updated_at`` moves when anything
    changed."""
    if data.is_default is not None:
        await _lock_default_changes(session)
    group = await get_group(session, group_id, for_update=True)
    assert group.id is not None
    if data.name is not None and data.name != group.name:
        await _ensure_name_free(session, data.name, group.id)
    changes: dict[str, Any] = {
        name: value
        for name, value in data.model_dump(exclude={"is_default", "period_discounts"}).items()
        if value is not None
    }
    if data.period_discounts is not None:
        changes["period_discounts"] = _periods(data.period_discounts)
    if "auto_assign_total_spent_kopeks" in changes:
        changes["auto_assign_total_spent_kopeks"] = changes["auto_assign_total_spent_kopeks"] or None
    changed = False
    for name, value in changes.items():
        if getattr(group, name) != value:
            setattr(group, name, value)
            changed = True
    if data.is_default and not group.is_default:
        current = await get_default_group(session)
        if current is not None:
            current.is_default = False
            current.updated_at = utcnow()
            await session.flush()
        group.is_default = changed = True
    elif data.is_default is False and group.is_default:
        query = select(PromoGroup).where(col(PromoGroup.id) != group.id).order_by(col(PromoGroup.id)).limit(1)
        replacement = (await session.exec(query)).first()
        if replacement is not None:  # the only group stays the default: there must be one
            group.is_default = False
            await session.flush()
            replacement.is_default = True
            replacement.updated_at = utcnow()
            changed = True
    if changed:
        group.updated_at = utcnow()
    await _flush(session, group.name)
    return group


async def delete_group(app: Starlette, session: AsyncSession, group_id: int) -> None:
    """Delete a non-default group after moving its members to the default group."""
    await _lock_default_changes(session)
    group = await get_group(session, group_id, for_update=True)
    assert group.id is not None
    if group.is_default:
        raise DefaultGroupProtected(group_id)
    fallback = await ensure_default_group(session)
    if fallback.id == group.id:  # it was the default's namesake, and has just become the default
        raise DefaultGroupProtected(group_id)
    assert fallback.id is not None
    await services(app).plugins.call_all(
        "promo_group_deleting", app=app, session=session, group_id=group.id, fallback_group_id=fallback.id
    )
    await session.delete(group)
    try:
        await session.flush()
    except IntegrityError as exc:
        raise GroupInUse(group_id) from exc

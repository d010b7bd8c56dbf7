"""Finding users and building their records: used by every plugin that answers with a user."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, case, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_promo_groups.models import PromoGroup

from subsvc.api import HTTPError
from subsvc_users.models import User
from subsvc_users.schemas import INT32_MAX, INT64_MAX, PromoGroupSummary, UserResponse

_ROW_FIELDS = tuple(name for name in UserResponse.model_fields if name in User.model_fields)


async def find_user(session: AsyncSession, user_id: int, *, for_update: bool = False) -> User | None:
    """Resolve a path id as the reference does: a messenger id first, then an internal id
    (only when it fits a 32-bit integer). One query: both matches, the messenger one first."""
    conditions: list[ColumnElement[bool]] = []
    if -INT64_MAX - 1 <= user_id <= INT64_MAX:
        conditions.append(col(User.messenger_id) == user_id)
    if -INT32_MAX - 1 <= user_id <= INT32_MAX:
        conditions.append(col(User.id) == user_id)
    if not conditions:  # beyond BIGINT: no row has it
        return None
    messenger_first = case((col(User.messenger_id) == user_id, 0), else_=1)
    query = select(User).where(or_(*conditions)).order_by(messenger_first).limit(1)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


async def find_user_by_messenger_id(session: AsyncSession, messenger_id: int) -> User | None:
    """The user with this messenger id (no fallback to internal ids)."""
    if not -INT64_MAX - 1 <= messenger_id <= INT64_MAX:
        return None
    return (await session.exec(select(User).where(col(User.messenger_id) == messenger_id))).first()


async def get_user(session: AsyncSession, user_id: int, *, for_update: bool = False) -> User:
    """:func:`find_user`, or 404 ``User not found``."""
    user = await find_user(session, user_id, for_update=for_update)
    if user is None:
        raise HTTPError(404, "User not found")
    return user


async def user_records(request: Request, session: AsyncSession, users: Sequence[User]) -> list[UserResponse]:
    """The records of ``users`` (one query for their promo groups, one call per
    ``user_record_extras`` implementation for the whole page)."""
    if not users:
        return []
    ids = [user.id for user in users if user.id is not None]
    group_ids = {user.promo_group_id for user in users if user.promo_group_id is not None}
    groups: dict[int, PromoGroupSummary] = {}
    if group_ids:
        rows = await session.exec(select(PromoGroup).where(col(PromoGroup.id).in_(group_ids)))
        groups = {group.id: PromoGroupSummary.model_validate(group) for group in rows.all() if group.id}
    extras: dict[int, dict[str, Any]] = {}
    for part in request.app.state.plugins.hook.user_record_extras(session=session, user_ids=ids):
        if inspect.isawaitable(part):
            part = await part
        for user_id, fields in (part or {}).items():
            extras.setdefault(user_id, {}).update(fields)
    records = []
    for user in users:
        data: dict[str, Any] = {name: getattr(user, name) for name in _ROW_FIELDS}
        data["promo_group"] = groups.get(user.promo_group_id) if user.promo_group_id is not None else None
        data.update(extras.get(user.id or 0, {}))
        records.append(UserResponse.model_validate(data))
    return records


async def user_record(request: Request, session: AsyncSession, user: User) -> UserResponse:
    """The record of one user."""
    return (await user_records(request, session, [user]))[0]

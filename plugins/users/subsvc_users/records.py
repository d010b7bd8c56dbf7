"""Finding users and building their records: used by every plugin that answers with a user."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc_promo_groups.models import PromoGroup
from subsvc_users.models import User
from subsvc_users.schemas import PromoGroupSummary, UserResponse

INT32_MAX = 2**31 - 1


async def find_user(session: AsyncSession, user_id: int, *, for_update: bool = False) -> User | None:
    """Resolve a path id as the reference does: a messenger id first, then an internal id
    (only when it fits a 32-bit integer)."""
    query = select(User).where(col(User.messenger_id) == user_id)
    if for_update:
        query = query.with_for_update()
    user = (await session.exec(query)).first()
    if user is None and -INT32_MAX - 1 <= user_id <= INT32_MAX:
        query = select(User).where(col(User.id) == user_id)
        if for_update:
            query = query.with_for_update()
        user = (await session.exec(query)).first()
    return user


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
    groups: dict[int, PromoGroup] = {}
    if group_ids:
        rows = await session.exec(select(PromoGroup).where(col(PromoGroup.id).in_(group_ids)))
        groups = {group.id: group for group in rows.all() if group.id is not None}
    extras: dict[int, dict[str, Any]] = {user_id: {} for user_id in ids}
    for part in request.app.state.plugins.hook.user_record_extras(session=session, user_ids=ids):
        if inspect.isawaitable(part):
            part = await part
        for user_id, fields in (part or {}).items():
            extras.setdefault(user_id, {}).update(fields)
    records = []
    for user in users:
        group = groups.get(user.promo_group_id) if user.promo_group_id is not None else None
        record = UserResponse.model_validate(user)
        record.promo_group = PromoGroupSummary.model_validate(group) if group is not None else None
        for name, value in extras.get(user.id or 0, {}).items():
            setattr(record, name, value)
        records.append(UserResponse.model_validate(record.model_dump()))
    return records


async def user_record(request: Request, session: AsyncSession, user: User) -> UserResponse:
    """The record of one user."""
    return (await user_records(request, session, [user]))[0]

"""A user's standing (roles, permissions, level) and the access policies, read in one query
each and kept in memory for a few seconds.

Every change through the API calls :meth:`GrantsCache.invalidate_on_commit`: this instance
forgets everything at once and again at the commit, and the other instances are told through
the bus. A read that started before a change is never stored after it (a generation number
guards the store; core's :class:`subsvc.bus.Invalidation`), and an entry never outlives the
earliest expiry of the assignments it holds.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.auth.principal import Grants
from subsvc.bus import Bus, Invalidation
from subsvc.db import Database, utcnow
from subsvc.db.rows import Rows
from subsvc_rbac.models import SUPERADMIN_LEVEL, AccessPolicy, AdminRole, UserRole

log = logging.getLogger("subsvc.rbac")
INVALIDATE_CHANNEL = "rbac.invalidate"
MANAGEMENT_CEILING = 1000


@dataclass(frozen=True)
class Standing:
    """What a user holds through effective assignments (active, unexpired, of active roles)."""

    role_ids: tuple[int, ...] = ()
    roles: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()
    level: int = 0
    valid_until: datetime | None = None  # the earliest expiry among the assignments

    def grants(self) -> Grants:
        return Grants(roles=self.roles, permissions=self.permissions, level=self.level)


@dataclass(frozen=True)
class PolicyRule:
    """An active policy as the gate evaluates it."""

    id: int
    name: str
    role_id: int | None
    priority: int
    effect: str
    resource: str
    actions: tuple[str, ...]
    conditions: dict[str, Any] = field(default_factory=dict, compare=False)


def management_level(is_admin: bool, standing: Standing) -> int:
    """The level a caller manages from: 1000 for settings administrators and superadmins
    (level 999), else the highest level of their roles."""
    if is_admin or standing.level >= SUPERADMIN_LEVEL:
        return MANAGEMENT_CEILING
    return standing.level


def effective_assignment(now: datetime) -> Any:
    """The WHERE condition of an assignment that counts at ``now``."""
    return (
        col(UserRole.is_active).is_(True)
        & col(AdminRole.is_active).is_(True)
        & or_(col(UserRole.expires_at).is_(None), col(UserRole.expires_at) > now)
    )


async def read_standing(session: AsyncSession, user_id: int) -> Standing:
    """One query: the user's effective roles, highest level first."""
    now = utcnow()
    query = (
        Rows(
            col(AdminRole.id),
            col(AdminRole.name),
            col(AdminRole.level),
            col(AdminRole.permissions),
            col(UserRole.expires_at),
        )
        .join(UserRole, col(UserRole.role_id) == col(AdminRole.id))
        .where(col(UserRole.user_id) == user_id, effective_assignment(now))
        .order_by(col(AdminRole.level).desc(), col(AdminRole.id))
    )
    rows = list((await session.exec(query)).all())
    if not rows:
        return Standing()
    permissions: dict[str, None] = {}
    for row in rows:
        permissions.update(dict.fromkeys(row[3] or ()))
    expiries = [row[4] for row in rows if row[4] is not None]
    return Standing(
        role_ids=tuple(row[0] for row in rows),
        roles=tuple(row[1] for row in rows),
        permissions=tuple(permissions),
        level=max(row[2] for row in rows),
        valid_until=min(expiries) if expiries else None,
    )


async def read_policies(session: AsyncSession) -> tuple[PolicyRule, ...]:
    """Every active policy, highest priority first (then oldest first)."""
    query = (
        select(AccessPolicy)
        .where(col(AccessPolicy.is_active).is_(True))
        .order_by(col(AccessPolicy.priority).desc(), col(AccessPolicy.id))
    )
    return tuple(
        PolicyRule(
            id=policy.id or 0,
            name=policy.name,
            role_id=policy.role_id,
            priority=policy.priority,
            effect=policy.effect,
            resource=policy.resource,
            actions=tuple(policy.actions or ()),
            conditions=dict(policy.conditions or {}),
        )
        for policy in (await session.exec(query)).all()
    )


class GrantsCache:
    """Standings per user and the policy list, each trusted for ``seconds``."""

    def __init__(self, db: Database, bus: Bus, seconds: float, max_entries: int = 10_000) -> None:
        self.db = db
        self.bus = bus
        self.seconds = seconds
        self.max_entries = max_entries
        self._standings: dict[int, tuple[float, Standing]] = {}
        self._policies: tuple[float, tuple[PolicyRule, ...]] | None = None
        self.changes = Invalidation(bus, INVALIDATE_CHANNEL, self._forget)

    async def standing(self, user_id: int) -> Standing:
        entry = self._standings.get(user_id)
        now = time.monotonic()
        if entry is not None and entry[0] > now:
            standing = entry[1]
            if standing.valid_until is None or standing.valid_until > utcnow():
                return standing
        generation = self.changes.generation
        async with self.db.session(read_only=True) as session:
            standing = await read_standing(session, user_id)
        if self.seconds > 0 and generation == self.changes.generation:
            if len(self._standings) >= self.max_entries:
                self._standings.clear()
            self._standings[user_id] = (now + self.seconds, standing)
        return standing

    async def policies(self) -> tuple[PolicyRule, ...]:
        now = time.monotonic()
        if self._policies is not None and self._policies[0] > now:
            return self._policies[1]
        generation = self.changes.generation
        async with self.db.session(read_only=True) as session:
            rules = await read_policies(session)
        if self.seconds > 0 and generation == self.changes.generation:
            self._policies = (now + self.seconds, rules)
        return rules

    def invalidate(self) -> None:
        """Forget everything on this instance now."""
        self.changes.invalidate()

    def invalidate_on_commit(self, session: AsyncSession) -> None:
        """Forget everything now and again when ``session`` commits, and tell the other
        instances after the commit."""
        self.changes.invalidate_on_commit(session)

    def _forget(self) -> None:
        self._standings.clear()
        self._policies = None

    async def drain(self) -> None:
        await self.changes.drain()

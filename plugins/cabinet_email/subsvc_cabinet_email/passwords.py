"""Password hashing with Argon2id (argon2-cffi), off the event loop: one hash costs tens of
milliseconds of CPU and tens of MiB of memory by design."""

from __future__ import annotations

import asyncio
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from subsvc_cabinet_email.settings import CabinetEmailSettings


class Passwords:
    """Hashes and checks passwords with the configured Argon2id cost."""

    def __init__(self, settings: CabinetEmailSettings) -> None:
        self.hasher = PasswordHasher(
            time_cost=settings.CABINET_PASSWORD_ARGON2_TIME_COST,
            memory_cost=settings.CABINET_PASSWORD_ARGON2_MEMORY_KIB,
            parallelism=settings.CABINET_PASSWORD_ARGON2_PARALLELISM,
        )
        # checked against when no account matches, so that a miss costs what a hit costs
        self._decoy = _decoy(self.hasher.time_cost, self.hasher.memory_cost, self.hasher.parallelism)

    async def hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """True when ``password`` matches; a missing or unreadable hash never matches (but
        costs the same time)."""
        return await asyncio.to_thread(self._verify, password_hash, password)

    def _verify(self, password_hash: str | None, password: str) -> bool:
        try:
            return self.hasher.verify(password_hash or self._decoy, password) and password_hash is not None
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        """The hash was made with other parameters than today's (upgrade it at login)."""
        try:
            return self.hasher.check_needs_rehash(password_hash)
        except InvalidHashError:
            return True


@cache
def _decoy(time_cost: int, memory_cost: int, parallelism: int) -> str:
    """A hash of no one's password made with these costs (once per process: it costs what a
    real hash costs)."""
    hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_cost, parallelism=parallelism)
    return hasher.hash("not a password of anyone")

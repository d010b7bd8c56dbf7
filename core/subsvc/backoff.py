"""Exponential backoff: how long to wait before trying again something that failed (the
outbox's subscriber retries, webhook deliveries, the panel's queued changes)."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """Waits that grow by ``factor`` from ``base_seconds`` up to ``max_seconds``, each moved at
    random by up to ``jitter`` of itself either way (0: exact)."""

    base_seconds: float
    factor: float
    max_seconds: float
    jitter: float = 0.0

    def seconds(self, failures: int) -> float:
        """The wait after the ``failures``-th failed attempt (1: the first failed)."""
        try:
            delay = min(self.base_seconds * self.factor ** max(failures - 1, 0), self.max_seconds)
        except OverflowError:  # a growth beyond any float is beyond the cap too
            delay = self.max_seconds
        if not self.jitter:
            return float(delay)
        return delay * random.uniform(1 - self.jitter, 1 + self.jitter)  # noqa: S311 - not crypto

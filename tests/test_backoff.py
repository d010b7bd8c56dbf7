"""Retry spacing: exponential from the base, capped, jittered within its fraction."""

from __future__ import annotations

from subsvc.backoff import Backoff


def test_waits_grow_from_the_base_to_the_cap():
    backoff = Backoff(base_seconds=5, factor=2, max_seconds=60)
    assert [backoff.seconds(n) for n in range(0, 7)] == [5, 5, 10, 20, 40, 60, 60]
    assert backoff.seconds(10**6) == 60  # a growth past any float is the cap


def test_jitter_stays_within_its_fraction_and_spreads():
    backoff = Backoff(base_seconds=100, factor=1, max_seconds=1000, jitter=0.1)
    waits = [backoff.seconds(3) for _ in range(300)]
    assert all(90 <= wait <= 110 for wait in waits)
    assert len(set(waits)) > 250

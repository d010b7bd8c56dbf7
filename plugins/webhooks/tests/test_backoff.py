"""Retry spacing: exponential, capped, jittered; the defaults spread 10 attempts over about a day."""

from __future__ import annotations

from subsvc_webhooks.delivery import retry_delay
from subsvc_webhooks.settings import WebhookSettings


def settings(**values) -> WebhookSettings:
    return WebhookSettings(_env_file=None, **values)


def test_waits_grow_exponentially_up_to_the_cap():
    exact = settings(WEBHOOK_RETRY_JITTER=0)
    waits = [retry_delay(exact, attempt) for attempt in range(1, exact.WEBHOOK_MAX_ATTEMPTS)]
    assert waits == [30, 90, 270, 810, 2430, 7290, 21600, 21600, 21600]
    assert 20 * 3600 < sum(waits) < 24 * 3600  # 10 attempts over about a day


def test_jitter_moves_each_wait_within_its_fraction():
    jittered = settings(WEBHOOK_RETRY_JITTER=0.2)
    samples = [retry_delay(jittered, 3) for _ in range(500)]
    assert all(270 * 0.8 <= s <= 270 * 1.2 for s in samples)
    assert len({round(s, 6) for s in samples}) > 400  # spread, not a constant
    assert min(samples) < 270 * 0.9 and max(samples) > 270 * 1.1

"""The traffic a subscription used, read from its panel account at once: at most once a
minute per user and subscription (``RATE_LIMITS`` entry ``refresh_traffic``); asked again
sooner, the last answer of the minute is given again, else 429."""

from __future__ import annotations

import logging
import time
import weakref
from dataclasses import dataclass, field

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.panel import GIB, PanelError, PanelUser
from subsvc.ratelimit import rate_limiter
from subsvc_addons.owned import PANEL, subscription_of
from subsvc_addons.schemas import TrafficRefresh

log = logging.getLogger("subsvc.addons")
NO_ACTIVE_SUBSCRIPTION = "No active subscription"
ACTION = "refresh_traffic"
LIMIT = "1/minute"
CACHE_SECONDS = 60.0


@dataclass
class TrafficCache:
    """The panel's last answer per user and subscription, kept for a minute in this process."""

    answers: dict[str, tuple[float, TrafficRefresh]] = field(default_factory=dict)

    def get(self, key: str) -> TrafficRefresh | None:
        found = self.answers.get(key)
        if found is None or found[0] <= time.monotonic():
            self.answers.pop(key, None)
            return None
        return found[1]

    def put(self, key: str, answer: TrafficRefresh) -> None:
        now = time.monotonic()
        self.answers = {k: v for k, v in self.answers.items() if v[0] > now}  # the stale go
        self.answers[key] = (now + CACHE_SECONDS, answer)


_CACHES: weakref.WeakKeyDictionary[Starlette, TrafficCache] = weakref.WeakKeyDictionary()


def figures(subscription: Subscription, used_bytes: int, limit_bytes: int, source: str) -> TrafficRefresh:
    """The answer for these figures (the limit in GB is the subscription's)."""
    used_gb = used_bytes / GIB
    limit_gb = subscription.traffic_limit_gb
    return TrafficRefresh(
        source=source,
        traffic_used_bytes=used_bytes,
        traffic_used_gb=round(used_gb, 2),
        traffic_limit_bytes=limit_bytes,
        traffic_limit_gb=limit_gb,
        traffic_used_percent=round(min(100.0, used_gb / limit_gb * 100), 1) if limit_gb else 0.0,
        is_unlimited=limit_gb == 0,
    )


async def _account(app: Starlette, session: AsyncSession, subscription: Subscription) -> PanelUser | None:
    panel = await PANEL.find(app)
    if panel is None:
        return None
    assert subscription.id is not None
    try:
        return await panel.account(session, subscription.id)
    except PanelError as exc:
        log.warning("traffic of subscription %s: the panel failed: %s", subscription.id, exc)
        return None


async def refresh_traffic(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> TrafficRefresh:
    """The subscription's traffic from the panel, stored as its ``traffic_used_gb``; the
    figures we have (``source`` ``database``) when the panel cannot say. 404 without a
    subscription; 429 with ``Retry-After`` when asked again within the limit and nothing of
    the last minute is kept."""
    subscription = await subscription_of(session, user_id, subscription_id, missing=NO_ACTIVE_SUBSCRIPTION)
    assert subscription.id is not None
    key = f"{user_id}:{subscription.id}"
    cache = _CACHES.setdefault(app, TrafficCache())
    retry_after = await rate_limiter(app).hit(ACTION, LIMIT, key)
    if retry_after is not None:
        kept = cache.get(key)
        if kept is None:
            raise HTTPError(
                429, f"Rate limited. Try again in {retry_after} seconds.", {"Retry-After": str(retry_after)}
            )
        return kept.model_copy(
            update={"cached": True, "rate_limited": True, "retry_after_seconds": retry_after}
        )
    account = await _account(app, session, subscription)
    if account is None:
        used = round(subscription.traffic_used_gb * GIB)
        return figures(subscription, used, subscription.traffic_limit_gb * GIB, "database")
    answer = figures(subscription, account.used_traffic_bytes, account.traffic_limit_bytes, "panel")
    answer.lifetime_used_bytes = account.lifetime_used_traffic_bytes
    answer.lifetime_used_gb = round(account.lifetime_used_traffic_bytes / GIB, 2)
    state = subscriptions.PanelState(traffic_used_gb=round(account.used_traffic_bytes / GIB, 4))
    await subscriptions.write_panel_state(session, subscription.id, state, utcnow())
    cache.put(key, answer)
    return answer

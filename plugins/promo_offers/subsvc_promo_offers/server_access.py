"""Temporary server access (``test_access`` offers): a claim connects the offer's squads to the
user's live subscription for a while; :func:`revoke_due` disconnects them when that time is up."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription

from subsvc.events import EventBus
from subsvc_promo_offers.models import DiscountOffer, PromoOfferTemplate, ServerAccessGrant

DEFAULT_HOURS = 24
LIVE = ("active", "trial")
NO_SUBSCRIPTION = "Active subscription required for this offer"
NO_SQUADS = "Could not determine servers for test access"
ALREADY_CONNECTED = "These servers are already connected"


class ServerAccessRefused(ValueError):
    """The claim cannot grant test access; the message is the answer (400)."""


@dataclass(frozen=True)
class Granted:
    squads: list[str]
    expires_at: datetime
    subscription_id: int


def _hours(value: Any) -> int | None:
    try:
        hours = int(value)
    except (TypeError, ValueError):
        return None
    return hours if hours > 0 else None


def _squads(extra: Mapping[str, Any], template: PromoOfferTemplate | None) -> list[str]:
    raw: Any = extra.get("test_squad_uuids") or extra.get("test_squad_uuid")
    if isinstance(raw, str):
        raw = [raw]
    if not raw and template is not None:
        raw = template.test_squad_uuids
    squads = (str(item).strip() for item in raw or () if item is not None)
    return list(dict.fromkeys(squad for squad in squads if squad))


async def grant(
    session: AsyncSession,
    events: EventBus,
    offer: DiscountOffer,
    template: PromoOfferTemplate | None,
    now: datetime,
) -> Granted:
    """Connect the offer's squads (``extra_data.test_squad_uuids``, else the template's) to the
    user's live subscription until now + ``test_duration_hours`` (``extra_data``, else the
    template's, else 24). Squads connected already are left alone and never revoked."""
    extra = offer.extra_data or {}
    subscription = await subscriptions.primary_of(session, offer.user_id, for_update=True)
    if subscription is None or subscription.status not in LIVE or subscription.end_date <= now:
        raise ServerAccessRefused(NO_SUBSCRIPTION)
    squads = _squads(extra, template)
    if not squads:
        raise ServerAccessRefused(NO_SQUADS)
    new = [squad for squad in squads if squad not in subscription.connected_squads]
    if not new:
        raise ServerAccessRefused(ALREADY_CONNECTED)
    hours = _hours(extra.get("test_duration_hours"))
    if hours is None and template is not None:
        hours = _hours(template.test_duration_hours)
    expires_at = now + timedelta(hours=hours or DEFAULT_HOURS)
    assert subscription.id is not None and offer.id is not None
    for squad in new:
        await subscriptions.add_squad(session, events, subscription, squad)
        session.add(
            ServerAccessGrant(
                offer_id=offer.id,
                subscription_id=subscription.id,
                squad_uuid=squad,
                expires_at=expires_at,
                created_at=now,
            )
        )
    return Granted(new, expires_at, subscription.id)


async def revoke_due(session: AsyncSession, events: EventBus, now: datetime, limit: int = 100) -> int:
    """Disconnect the squads whose test access has ended (unless another grant still covers
    the same squad on the same subscription); returns how many grants were closed."""
    query = (
        select(ServerAccessGrant)
        .where(col(ServerAccessGrant.revoked_at).is_(None), col(ServerAccessGrant.expires_at) <= now)
        .order_by(col(ServerAccessGrant.expires_at))
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    due = list((await session.exec(query)).all())
    for item in due:
        item.revoked_at = now
        still_covered = select(col(ServerAccessGrant.id)).where(
            col(ServerAccessGrant.subscription_id) == item.subscription_id,
            col(ServerAccessGrant.squad_uuid) == item.squad_uuid,
            col(ServerAccessGrant.revoked_at).is_(None),
            col(ServerAccessGrant.expires_at) > now,
        )
        if (await session.exec(still_covered.limit(1))).first() is not None:
            continue
        subscription = await subscriptions.get(session, item.subscription_id, for_update=True)
        if isinstance(subscription, Subscription):
            await subscriptions.remove_squad(session, events, subscription, item.squad_uuid)
    await session.flush()
    return len(due)

"""Claiming an offer from the cabinet: the offer is taken in one conditional UPDATE (so it is
claimed once, however many requests race), then its effects are applied in the same
transaction: a failed effect rolls the claim back.

Effects, by what the offer carries:
- ``discount_percent`` > 0: the user's active discount (expiry from
  ``extra_data.active_discount_hours``, else the template's ``active_discount_hours``
  (``extra_data.template_id``), else none);
- ``bonus_amount_kopeks`` > 0: a balance credit through billing (one transaction per offer);
- ``effect_type`` ``subscription_days``: ``extra_data.days`` added to the user's subscription;
- ``effect_type`` ``test_access``: the offer's squads connected for a while (:mod:`.server_access`).
An offer that carries none of these is refused (400 ``Invalid offer``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing import api as billing
from subsvc_billing.api import DEPOSIT
from subsvc_subscriptions import api as subscriptions

from subsvc.api import fits_int32, from_attributes
from subsvc.api.refusal import Refusal
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc.services import services
from subsvc_promo_offers import server_access
from subsvc_promo_offers.discounts import lock_user, set_active_discount
from subsvc_promo_offers.logs import CLAIMED, add_log
from subsvc_promo_offers.models import SUBSCRIPTION_DAYS, TEST_ACCESS, DiscountOffer, PromoOfferTemplate
from subsvc_promo_offers.schemas import ClaimOfferResponse, OfferClaimed
from subsvc_promo_offers.tables import OFFERS

CLAIMED_EVENT = "promo_offer.claimed"
PAYMENT_METHOD = "promo_offer"
NOT_FOUND = "Offer not found"
ALREADY_CLAIMED = "This offer has already been claimed"
EXPIRED = "This offer has expired"
INVALID = "Invalid offer"
NO_SUBSCRIPTION = "Subscription required for this offer"
TIME_FORMAT = "%Y-%m-%d %H:%M"


class ClaimRefused(Refusal):
    """The claim is refused with ``status`` and ``detail``; ``expired`` asks the caller to
    commit the offer's deactivation before answering."""

    def __init__(self, status: int, detail: str, *, expired: bool = False) -> None:
        super().__init__(status, detail)
        self.expired = expired


def _positive_int(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


async def _take(session: AsyncSession, user_id: int, offer_id: int, now: datetime) -> DiscountOffer:
    """Mark the offer claimed if it is the user's, open and not expired; else say why not."""
    statement = (
        update(DiscountOffer)
        .where(
            OFFERS.c.id == offer_id,
            OFFERS.c.user_id == user_id,
            OFFERS.c.claimed_at.is_(None),
            OFFERS.c.is_active.is_(True),
            OFFERS.c.expires_at > now,
        )
        .values(claimed_at=now, is_active=False, updated_at=now)
        .returning(DiscountOffer)
        .execution_options(synchronize_session=False)
    )
    offer: DiscountOffer | None = (await session.exec(statement)).scalars().first()
    if offer is not None:
        return offer
    current = await session.get(DiscountOffer, offer_id)
    if current is None or current.user_id != user_id:
        raise ClaimRefused(404, NOT_FOUND)
    if current.claimed_at is not None:
        raise ClaimRefused(400, ALREADY_CLAIMED)
    if current.is_active:
        current.is_active = False
        current.updated_at = now
    raise ClaimRefused(400, EXPIRED, expired=True)


async def _template(session: AsyncSession, extra: dict[str, Any]) -> PromoOfferTemplate | None:
    template_id = _positive_int(extra.get("template_id"))
    if template_id is None or not fits_int32(template_id):
        return None
    return await session.get(PromoOfferTemplate, template_id)


async def claim(app: Starlette, session: AsyncSession, user_id: int, offer_id: int) -> ClaimOfferResponse:
    """Claim the user's offer and apply its effects; raises :class:`ClaimRefused`."""
    if not fits_int32(offer_id):
        raise ClaimRefused(404, NOT_FOUND)
    events: EventBus = services(app).events
    now = utcnow()
    await lock_user(session, user_id)  # before the discount's row, as every change of the discount
    offer = await _take(session, user_id, offer_id, now)
    extra = dict(offer.extra_data or {})
    template = await _template(session, extra)
    messages: list[str] = []
    details: dict[str, Any] = {"context": "cabinet_claim"}
    answer: dict[str, Any] = {}
    effect = (offer.effect_type or "").lower()

    if effect == TEST_ACCESS:
        try:
            granted = await server_access.grant(session, events, offer, template, now)
        except server_access.ServerAccessRefused as refused:
            raise ClaimRefused(400, str(refused)) from None
        messages.append(f"Test access activated until {granted.expires_at.strftime(TIME_FORMAT)}")
        details.update(new_squads=granted.squads, expires_at=granted.expires_at.isoformat())
        answer["expires_at"] = granted.expires_at

    if effect == SUBSCRIPTION_DAYS:
        days = _positive_int(extra.get("days", extra.get("subscription_days")))
        if days is None:
            raise ClaimRefused(400, INVALID)
        subscription = await subscriptions.primary_of(session, user_id, for_update=True)
        if subscription is None:
            raise ClaimRefused(400, NO_SUBSCRIPTION)
        try:
            await subscriptions.extend(session, events, subscription, days)
        except subscriptions.RuleViolation as violation:
            raise ClaimRefused(400, str(violation)) from None
        messages.append(f"Subscription extended by {days} days")
        details.update(subscription_id=subscription.id, days=days)
        answer["subscription_end_date"] = subscription.end_date

    if offer.discount_percent > 0:
        hours = _positive_int(extra.get("active_discount_hours"))
        if hours is None and template is not None:
            hours = _positive_int(template.active_discount_hours)
        discount_expires = now + timedelta(hours=hours) if hours else None
        await set_active_discount(
            session,
            user_id,
            percent=offer.discount_percent,
            source=offer.notification_type,
            offer_id=offer.id,
            expires_at=discount_expires,
        )
        until = f" Valid until {discount_expires.strftime(TIME_FORMAT)}" if discount_expires else ""
        messages.insert(0, f"Discount of {offer.discount_percent}% activated!{until}")
        details.update(
            discount_percent=offer.discount_percent,
            discount_expires_at=discount_expires.isoformat() if discount_expires else None,
        )
        answer.update(discount_percent=offer.discount_percent, expires_at=discount_expires)

    if offer.bonus_amount_kopeks > 0:
        balance = await _credit_bonus(session, events, offer)
        messages.append(f"Bonus of {offer.bonus_amount_kopeks / 100:.2f} ₽ credited to your balance")
        details["bonus_amount_kopeks"] = offer.bonus_amount_kopeks
        answer.update(bonus_amount_kopeks=offer.bonus_amount_kopeks, balance_kopeks=balance)

    if not messages:
        raise ClaimRefused(400, INVALID)
    _record(session, events, offer, details)
    return ClaimOfferResponse(success=True, message=_sentences(messages), **answer)


def _sentences(messages: list[str]) -> str:
    """One message as the reference words it; several as sentences."""
    if len(messages) == 1:
        return messages[0]
    return " ".join(text if text.endswith(("!", ".")) else f"{text}." for text in messages)


async def _credit_bonus(session: AsyncSession, events: EventBus, offer: DiscountOffer) -> int:
    """Credit the offer's bonus atomically, recorded as a deposit whose external id is the
    offer (unique: an offer never pays twice). Returns the new balance."""
    assert offer.id is not None
    _, balance = await billing.move_balance(
        session,
        events,
        offer.user_id,
        offer.bonus_amount_kopeks,
        type=DEPOSIT,
        description=f"Бонус промо-предложения #{offer.id}",
        payment_method=PAYMENT_METHOD,
        external_id=f"offer:{offer.id}",
    )
    return balance


def _record(session: AsyncSession, events: EventBus, offer: DiscountOffer, details: dict[str, Any]) -> None:
    assert offer.id is not None and offer.claimed_at is not None
    add_log(
        session,
        action=CLAIMED,
        user_id=offer.user_id,
        offer_id=offer.id,
        source=offer.notification_type,
        percent=offer.discount_percent,
        effect_type=offer.effect_type,
        details={**details, "extra_data": offer.extra_data} if offer.extra_data else details,
    )
    events.publish(
        session,
        CLAIMED_EVENT,
        from_attributes(OfferClaimed, offer, offer_id=offer.id),
    )

"""Broadcasting an offer: offers for every recipient (upserted), and, when asked, one messenger
message per recipient with a claim button, queued in the database and sent by a background
job (:mod:`.sender`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Integer, insert, literal, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import in_list, utcnow
from subsvc.services import services
from subsvc_promo_offers import recipients
from subsvc_promo_offers.common import id_chunk
from subsvc_promo_offers.models import OfferBroadcast
from subsvc_promo_offers.offers import OfferTerms, upsert_offers
from subsvc_promo_offers.schemas import PromoOfferBroadcastRequest, PromoOfferBroadcastResponse
from subsvc_promo_offers.segments import reachable_conditions
from subsvc_promo_offers.settings import PromoOffersSettings
from subsvc_promo_offers.tables import OFFERS, RECIPIENTS, USERS

SEND_JOB = "promo_offers.send_broadcast"
DIRECT_TARGET = "promo_offer_direct"


def default_message(discount_percent: int, bonus_amount_kopeks: int, valid_hours: int) -> str:
    """The reference's text when the broadcast brings none."""
    lines = ["🎁 <b>Специальное предложение для вас!</b>\n"]
    if discount_percent > 0:
        lines.append(f"🔥 Скидка <b>{discount_percent}%</b> на подписку")
    if bonus_amount_kopeks > 0:
        lines.append(f"💰 Бонус <b>{bonus_amount_kopeks / 100:.0f}₽</b> на баланс")
    lines.append(f"\n⏰ Предложение действует <b>{valid_hours} ч.</b>")
    lines.append("\nНажмите кнопку ниже, чтобы активировать!")
    return "\n".join(lines)


def render_message(payload: PromoOfferBroadcastRequest) -> str:
    """The custom text with its placeholders filled (``{discount_percent}``, ``{valid_hours}``,
    ``{active_discount_hours}``, ``{test_duration_hours}``, ``{server_name}``; a text that does
    not render is sent as it is), else the default text."""
    if not payload.message_text:
        return default_message(payload.discount_percent, payload.bonus_amount_kopeks, payload.valid_hours)
    extra = payload.extra_data
    try:
        return payload.message_text.format(
            discount_percent=payload.discount_percent,
            valid_hours=payload.valid_hours,
            active_discount_hours=extra.get("active_discount_hours") or payload.valid_hours,
            test_duration_hours=extra.get("test_duration_hours") or 0,
            server_name=extra.get("server_name", ""),
        )
    except (KeyError, ValueError, IndexError, AttributeError):
        return payload.message_text


async def queue_notifications(
    app: Starlette,
    session: AsyncSession,
    payload: PromoOfferBroadcastRequest,
    offer_ids: Sequence[int],
    settings: PromoOffersSettings,
    created_by: int | None,
) -> OfferBroadcast:
    """Record the broadcast and one pending message per offer whose user the bot can write to
    (a messenger id, and no recent refusal of the bot: the segments plugin's rule), in one
    ``INSERT ... SELECT`` per chunk of offers."""
    broadcast = OfferBroadcast(
        target=payload.target or DIRECT_TARGET,
        notification_type=payload.notification_type.strip(),
        message_text=render_message(payload),
        button_text=payload.button_text or settings.PROMO_OFFERS_BUTTON_TEXT,
        status="queued",
        created_by=created_by,
        created_at=utcnow(),
    )
    session.add(broadcast)
    await session.flush()
    dialect = session.get_bind().dialect.name
    messages = (
        select(
            literal(broadcast.id, Integer),
            OFFERS.c.id,
            OFFERS.c.user_id,
            USERS.c.messenger_id,
            literal("pending"),
        )
        .select_from(OFFERS.join(USERS, USERS.c.id == OFFERS.c.user_id))
        .where(in_list(OFFERS.c.id, "ids", dialect), *reachable_conditions(app))
        .order_by(OFFERS.c.user_id)
    )
    statement = insert(RECIPIENTS).from_select(
        ["broadcast_id", "offer_id", "user_id", "messenger_id", "state"], messages
    )
    chunk = id_chunk(session)
    for start in range(0, len(offer_ids), chunk):
        result = await session.exec(statement, params={"ids": list(offer_ids[start : start + chunk])})
        broadcast.total_count += result.rowcount
    return broadcast


async def broadcast_offer(
    app: Starlette,
    session: AsyncSession,
    payload: PromoOfferBroadcastRequest,
    created_by: int | None,
) -> PromoOfferBroadcastResponse:
    """Offer to every recipient; with ``send_notification``, queue the messages and have the
    background job send them once this transaction commits. Raises
    :class:`~.recipients.RecipientError`."""
    user_ids = await recipients.resolve(
        app,
        session,
        recipients.ADMIN_TEXTS,
        target=payload.target,
        user_id=payload.user_id,
        messenger_id=payload.messenger_id,
        email=payload.email,
    )
    offers = await upsert_offers(session, user_ids, OfferTerms.of(payload))
    answer = PromoOfferBroadcastResponse(created_offers=len(offers), user_ids=user_ids, target=payload.target)
    if payload.send_notification and offers:
        settings = PromoOffersSettings.of(app)
        broadcast = await queue_notifications(
            app, session, payload, list(offers.values()), settings, created_by
        )
        assert broadcast.id is not None
        answer.broadcast_id = broadcast.id
        answer.messenger_recipients = broadcast.total_count
        if broadcast.total_count:
            services(app).jobs.enqueue_after_commit(session, SEND_JOB, broadcast_id=broadcast.id)
        else:
            broadcast.status = "completed"
            broadcast.completed_at = utcnow()
    return answer

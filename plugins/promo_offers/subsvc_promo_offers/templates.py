"""Offer templates: the three defaults of the reference (seeded at start), reading and changing."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import fits_int32
from subsvc.db import utcnow
from subsvc_promo_offers.common import dialect_insert
from subsvc_promo_offers.models import PromoOfferTemplate
from subsvc_promo_offers.schemas import PromoOfferTemplateUpdateRequest
from subsvc_promo_offers.tables import TEMPLATES

DEFAULT_TEMPLATES: tuple[dict[str, Any], ...] = (
    {
        "offer_type": "test_access",
        "name": "Тестовые сервера",
        "message_text": (
            "🔥 <b>Испытайте новые сервера</b>\n\n"
            "Активируйте предложение и получите временный доступ к дополнительным сквадам на "
            "{test_duration_hours} ч.\nПредложение действительно {valid_hours} ч."
        ),
        "button_text": "🚀 Попробовать серверы",
        "valid_hours": 24,
        "discount_percent": 0,
        "test_duration_hours": 24,
    },
    {
        "offer_type": "extend_discount",
        "name": "Скидка на продление",
        "message_text": (
            "💎 <b>Экономия {discount_percent}% при продлении</b>\n\n"
            "Активируйте предложение, и дополнительная скидка {discount_percent}% автоматически "
            "применится при оплате.\nСкидка суммируется с вашей промогруппой и действует {valid_hours} ч."
        ),
        "button_text": "🎁 Получить скидку",
        "valid_hours": 24,
        "discount_percent": 20,
    },
    {
        "offer_type": "purchase_discount",
        "name": "Скидка на покупку",
        "message_text": (
            "🎯 <b>Вернитесь со скидкой {discount_percent}%</b>\n\n"
            "Скидка {discount_percent}% автоматически применится при покупке новой подписки и "
            "суммируется с промогруппой.\nПредложение действует {valid_hours} ч."
        ),
        "button_text": "🎁 Забрать скидку",
        "valid_hours": 48,
        "discount_percent": 25,
    },
)
NOT_BLANK = ("name", "message_text", "button_text")


class TemplateRuleError(ValueError):
    """A change the rules refuse; the message is the answer (400)."""


async def ensure_default_templates(session: AsyncSession) -> None:
    """Insert the default templates whose ``offer_type`` is missing (safe to run on several
    instances at once: the type is unique and a taken one inserts nothing)."""
    now = utcnow()
    rows = [
        {
            "bonus_amount_kopeks": 0,
            "active_discount_hours": None,
            "test_duration_hours": None,
            "test_squad_uuids": [],
            "is_active": True,
            "created_by": None,
            "created_at": now,
            "updated_at": now,
            **template,
        }
        for template in DEFAULT_TEMPLATES
    ]
    statement = (
        dialect_insert(session, TEMPLATES).values(rows).on_conflict_do_nothing(index_elements=["offer_type"])
    )
    await session.exec(statement)


async def list_templates(session: AsyncSession) -> list[PromoOfferTemplate]:
    query = select(PromoOfferTemplate).order_by(
        col(PromoOfferTemplate.offer_type), col(PromoOfferTemplate.id)
    )
    return list((await session.exec(query)).all())


async def find_template(session: AsyncSession, template_id: int) -> PromoOfferTemplate | None:
    if not fits_int32(template_id):
        return None
    return await session.get(PromoOfferTemplate, template_id)


async def update_template(
    session: AsyncSession, template: PromoOfferTemplate, data: PromoOfferTemplateUpdateRequest
) -> PromoOfferTemplate:
    """Change the given fields (absent or null: unchanged). Names and texts must not be blank;
    squad ids are trimmed and blank ones dropped."""
    changes = data.model_dump(exclude_none=True)
    for name in NOT_BLANK:
        if name in changes and not changes[name].strip():
            raise TemplateRuleError(f"{name} must not be empty")
    if "test_squad_uuids" in changes:
        squads = (str(uuid).strip() for uuid in changes["test_squad_uuids"])
        changes["test_squad_uuids"] = list(dict.fromkeys(squad for squad in squads if squad))
    for name, value in changes.items():
        setattr(template, name, value)
    if changes:
        template.updated_at = utcnow()
    await session.flush()
    return template

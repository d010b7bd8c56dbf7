"""The plugin's hooks: YooKassa's method for the cabinet and its provider (payments' hooks,
while configured), saved cards recorded with the credit, and its part of an account merge."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_payments.api import PaymentMethodInfo

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc.services import services
from subsvc_pay_yookassa.cards import CARDS, record_saved_cards
from subsvc_pay_yookassa.protocol import CARD, NAME, SBP
from subsvc_pay_yookassa.provider import YookassaProvider
from subsvc_pay_yookassa.settings import YookassaSettings

CARD_OPTION = {"id": CARD, "name": "Банковская карта", "description": "Visa, Mastercard, МИР"}
SBP_OPTION = {"id": SBP, "name": "СБП", "description": "Система быстрых платежей"}


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    """YooKassa's method: cards, and SBP when enabled; none while not configured."""
    settings = YookassaSettings.of(app)
    if not settings.configured:
        return None
    options = [CARD_OPTION, SBP_OPTION] if settings.YOOKASSA_SBP_ENABLED else [CARD_OPTION]
    method = PaymentMethodInfo(
        id=NAME,
        name="YooKassa",
        description="Банковская карта или СБП" if settings.YOOKASSA_SBP_ENABLED else "Банковская карта",
        min_amount_kopeks=settings.YOOKASSA_MIN_AMOUNT_KOPEKS,
        max_amount_kopeks=settings.YOOKASSA_MAX_AMOUNT_KOPEKS,
        options=options,
    )
    return [method]


@hookimpl
def payments_provider(app: Starlette, method: str) -> YookassaProvider | None:
    """The provider of the method ``yookassa``, while configured."""
    settings = YookassaSettings.of(app)
    return YookassaProvider(app, settings) if method == NAME and settings.configured else None


@hookimpl
def startup(app: Starlette) -> None:
    """Record saved cards in the transaction that credits their payment."""
    services(app).events.subscribe_in_transaction(record_saved_cards)


@hookimpl(optionalhook=True)
async def cabinet_account_merging(
    app: Starlette, session: AsyncSession, kept_user_id: int, removed_user_id: int
) -> None:
    """The removed user's saved cards become the kept user's."""
    await reassign(session, CARDS.c.user_id, kept_user_id, removed_user_id)

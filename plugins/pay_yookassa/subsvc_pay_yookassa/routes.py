"""The cabinet's saved cards (tag Cabinet Balance): YooKassa's saved payment methods."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Router
from subsvc.auth.principal import Principal
from subsvc_pay_yookassa import cards
from subsvc_pay_yookassa.schemas import SavedCardDeleted, SavedCardResponse, SavedCardsListResponse
from subsvc_pay_yookassa.settings import YookassaSettings

balance = Router(area="cabinet", tag="Cabinet Balance")


def recurrent_enabled(request: Request) -> bool:
    settings = YookassaSettings.of(request.app)
    return settings.configured and settings.YOOKASSA_RECURRENT_ENABLED


@balance.get("/cabinet/balance/saved-cards")
async def get_saved_cards(
    request: Request, session: AsyncSession, principal: Principal
) -> SavedCardsListResponse:
    """Get user's saved payment methods (cards) for recurrent payments: none while recurrent
    payments are not enabled (`recurrent_enabled: false`)."""
    if not recurrent_enabled(request):
        return SavedCardsListResponse(cards=[], recurrent_enabled=False)
    saved = await cards.active_cards(session, principal.id)
    listed = [SavedCardResponse.model_validate(card, from_attributes=True) for card in saved]
    return SavedCardsListResponse(cards=listed, recurrent_enabled=True)


@balance.delete(
    "/cabinet/balance/saved-cards/{card_id}",
    responses={400: cards.NOT_ENABLED, 404: f"{cards.NOT_FOUND} (unknown, unlinked or another user's)"},
)
async def delete_saved_card(
    request: Request, session: AsyncSession, principal: Principal, card_id: int
) -> SavedCardDeleted:
    """Unlink (deactivate) a saved payment method."""
    if not recurrent_enabled(request):
        raise HTTPError(400, cards.NOT_ENABLED)
    await cards.unlink(session, principal.id, card_id)
    return SavedCardDeleted(success=True, message=cards.UNLINKED)

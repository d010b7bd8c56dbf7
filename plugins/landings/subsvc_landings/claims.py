"""What a purchase's token shows (credentials once) and a gift's claim (once)."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_landings.accounts import EMAIL, ContactRefused, account_for
from subsvc_landings.delivery import deliver, lock_purchase
from subsvc_landings.models import DELIVERED, PAID, GuestPurchase
from subsvc_landings.schemas import GiftClaimResponse, PurchaseStatusResponse

NOT_FOUND = "Purchase not found"
GIFT_NOT_FOUND = "Gift not found"
ALREADY_CLAIMED = "This gift has already been claimed"
NOT_CLAIMABLE = "This gift cannot be claimed yet"


class ClaimRefused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def status_of(purchase: GuestPurchase) -> PurchaseStatusResponse:
    """The purchase as its status page shows it, without credentials."""
    return PurchaseStatusResponse(
        status=purchase.status,
        subscription_url=purchase.subscription_url,
        subscription_crypto_link=purchase.subscription_crypto_link,
        is_gift=purchase.is_gift,
        contact_value=purchase.contact_value,
        recipient_contact_value=purchase.gift_recipient_value,
        period_days=purchase.period_days,
        tariff_name=purchase.tariff_name,
        gift_message=purchase.gift_message,
        contact_type=purchase.contact_type,
        is_claimable=purchase.is_gift and purchase.status == PAID,
    )


async def reveal(session: AsyncSession, token: str) -> PurchaseStatusResponse | None:
    """The purchase's status; a delivered purchase's new-account password is in the first
    answer only (wiped in the same transaction). The caller commits."""
    purchase = await lock_purchase(session, token)
    if purchase is None:
        return None
    shown = status_of(purchase)
    if purchase.status == DELIVERED and purchase.cabinet_password is not None:
        shown.cabinet_email, shown.cabinet_password = purchase.cabinet_email, purchase.cabinet_password
        purchase.cabinet_password = None
        session.add(purchase)
    return shown


async def find(session: AsyncSession, token: str) -> GuestPurchase | None:
    return (await session.exec(select(GuestPurchase).where(col(GuestPurchase.token) == token))).first()


async def claim(app: Starlette, session: AsyncSession, token: str, email: str) -> GiftClaimResponse:
    """Deliver a paid gift to the account of ``email`` (made when new: its one-time password
    is then on the purchase's status page). 409 once claimed, even under concurrent claims."""
    purchase = await lock_purchase(session, token)
    if purchase is None or not purchase.is_gift:
        raise ClaimRefused(404, GIFT_NOT_FOUND)
    if purchase.status == DELIVERED:
        raise ClaimRefused(409, ALREADY_CLAIMED)
    if purchase.status != PAID:
        raise ClaimRefused(400, NOT_CLAIMABLE)
    try:
        account = await account_for(app, session, EMAIL, email)
    except ContactRefused as refused:
        raise ClaimRefused(400, str(refused)) from None
    assert account.user.id is not None
    if account.password is not None:
        purchase.new_account = True
        purchase.cabinet_email, purchase.cabinet_password = account.user.email, account.password
    await deliver(app, session, purchase, account.user.id)
    return GiftClaimResponse(
        status="claimed" if purchase.status == DELIVERED else purchase.status,
        tariff_name=purchase.tariff_name,
        period_days=purchase.period_days,
        subscription_url=purchase.subscription_url,
        subscription_crypto_link=purchase.subscription_crypto_link,
    )

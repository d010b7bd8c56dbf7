"""What a purchase's token shows (credentials once) and a gift's claim (once)."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc_landings.accounts import EMAIL, ContactRefused, account_for
from subsvc_landings.delivery import deliver_to, lock_purchase
from subsvc_landings.models import DELIVERED, PAID, GuestPurchase
from subsvc_landings.purchases import Refused, complete_if_paid
from subsvc_landings.schemas import GiftClaimResponse, PurchaseStatusResponse

NOT_FOUND = "Purchase not found"
GIFT_NOT_FOUND = "Gift not found"
ALREADY_CLAIMED = "This gift has already been claimed"
NOT_CLAIMABLE = "This gift cannot be claimed yet"
REVEAL_WINDOW = timedelta(hours=24)
"""A new account's password is shown (once) only this long after delivery, as the reference."""


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


def gift_view(purchase: GuestPurchase) -> PurchaseStatusResponse:
    """The gift as whoever holds its link sees it: what it is and whether it can be claimed,
    without the buyer's contact or the subscription's links (those go to the claimer)."""
    return status_of(purchase).model_copy(
        update={"subscription_url": None, "subscription_crypto_link": None, "contact_value": None}
    )


async def reveal(app: Starlette, session: AsyncSession, token: str) -> PurchaseStatusResponse | None:
    """The purchase's status, completed first when its payment is credited but not yet reported;
    a new account's password is in the first answer after delivery only, within
    :data:`REVEAL_WINDOW` of it (wiped in the same transaction, under the row's lock). The
    caller commits."""
    purchase = await lock_purchase(session, token)
    if purchase is None:
        return None
    await complete_if_paid(app, session, purchase)
    shown = status_of(purchase)
    if purchase.status == DELIVERED and purchase.cabinet_password is not None:
        if purchase.delivered_at is not None and utcnow() - purchase.delivered_at <= REVEAL_WINDOW:
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
        raise Refused(404, GIFT_NOT_FOUND)
    if purchase.status == DELIVERED:
        raise Refused(409, ALREADY_CLAIMED)
    if purchase.status != PAID:
        raise Refused(400, NOT_CLAIMABLE)
    try:
        account = await account_for(app, session, EMAIL, email)
    except ContactRefused as refused:
        raise Refused(400, str(refused)) from None
    await deliver_to(app, session, purchase, account)
    return GiftClaimResponse(
        status="claimed" if purchase.status == DELIVERED else purchase.status,
        tariff_name=purchase.tariff_name,
        period_days=purchase.period_days,
        subscription_url=purchase.subscription_url,
        subscription_crypto_link=purchase.subscription_crypto_link,
    )

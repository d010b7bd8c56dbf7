"""Guest purchases: created from a landing page and paid at a provider through the payments
plugin (``purpose=guest_purchase`` and the token in its data, idempotency key
``guest:<token>``), the payment opened for the plugin's payment account: no buyer's account
exists before payment. Once ``balance.topped_up`` reports the payment (or a status poll finds
it credited), the price is debited from that account and the contact's account found or made
and given the subscription (a gift waits for its claim) — once, under the purchase's row
lock."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import InsufficientBalance, move_balance
from subsvc_payments.api import EXPIRED as PAYMENT_EXPIRED
from subsvc_payments.api import SUCCEEDED as PAYMENT_SUCCEEDED
from subsvc_payments.api import Payment, ProviderError, open_payment, provider_for
from subsvc_tariffs.api import find_tariff

from subsvc.db import utcnow
from subsvc.events import Event
from subsvc.services import services
from subsvc_landings.accounts import (
    Account,
    ContactRefused,
    account_for,
    check_contact,
    check_recipient,
    payment_account,
)
from subsvc_landings.catalogue import method_of, overridden, periods_of, price_of
from subsvc_landings.delivery import deliver_to, lock_purchase
from subsvc_landings.models import EXPIRED, FAILED, PAID, PENDING, GuestPurchase, LandingPage
from subsvc_landings.schemas import PurchaseRequest
from subsvc_landings.settings import LandingsSettings

KEY_PREFIX = "guest:"
PURPOSE = "guest_purchase"
log = logging.getLogger(__name__)

GIFTS_OFF = "Gift purchases are not enabled for this landing page"
METHOD_UNAVAILABLE = "Payment method is not available on this landing page"
TARIFF_UNAVAILABLE = "Tariff is not available on this landing page"
TARIFF_INACTIVE = "Tariff not found or inactive"
PERIOD_UNAVAILABLE = "Period is not available for this tariff"
PERIOD_NOT_ON_PAGE = PERIOD_UNAVAILABLE + " on this landing page"
NO_PRICE = "Price is not configured for this period"
NOT_FOR_GIFTS = "This tariff is not available for gift purchases"
PROVIDER_DOWN = "Payment provider is unavailable, please try again later"


class Refused(Exception):
    """A purchase or claim the rules refuse: ``status`` and the ``detail`` text."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def _return_url(app: Starlette, method: dict[str, Any], token: str) -> str | None:
    """The method's own return URL (``{token}`` replaced), else the cabinet's success page."""
    if method.get("return_url"):
        return str(method["return_url"]).replace("{token}", token)
    base = LandingsSettings.of(app).LANDINGS_CABINET_URL
    return f"{base.rstrip('/')}/buy/success/{token}" if base else None


def _rubles(kopeks: int) -> str:
    return f"{kopeks / 100:.2f}"


async def create_purchase(
    app: Starlette, session: AsyncSession, page: LandingPage, request: PurchaseRequest
) -> tuple[str, str]:
    """Check the request against the page, make the pending purchase and its provider payment
    (commits); answers the token and the payment URL. Raises :class:`Refused`."""
    if request.is_gift and not page.gift_enabled:
        raise Refused(400, GIFTS_OFF)
    found = method_of(page, request.payment_method)
    method = found[0] if found else None
    provider = await provider_for(app, method["method_id"]) if method else None
    if found is None or method is None or provider is None:
        raise Refused(400, METHOD_UNAVAILABLE)
    if request.tariff_id not in (page.config.get("allowed_tariff_ids") or []):
        raise Refused(400, TARIFF_UNAVAILABLE)
    tariff = await find_tariff(session, request.tariff_id)
    if tariff is None or not tariff.is_active:
        raise Refused(400, TARIFF_INACTIVE)
    if request.period_days not in periods_of(page, tariff):
        raise Refused(400, PERIOD_NOT_ON_PAGE if overridden(page, tariff) else PERIOD_UNAVAILABLE)
    price = price_of(page, tariff, request.period_days, utcnow())
    if price is None:
        raise Refused(400, NO_PRICE)
    if request.is_gift and not tariff.show_in_gift:
        raise Refused(400, NOT_FOR_GIFTS)
    low, high = method.get("min_amount_kopeks"), method.get("max_amount_kopeks")
    if low is not None and price.final < low:
        raise Refused(400, f"Amount is below the minimum ({_rubles(low)} RUB) for this payment method")
    if high is not None and price.final > high:
        raise Refused(400, f"Amount exceeds the maximum ({_rubles(high)} RUB) for this payment method")
    try:
        await check_contact(session, request.contact_type, request.contact_value)
        if request.is_gift and request.gift_recipient_type and request.gift_recipient_value:
            check_recipient(request.gift_recipient_type, request.gift_recipient_value)
    except ContactRefused as refused:
        raise Refused(400, str(refused)) from None
    payer = await payment_account(app, session)
    token = secrets.token_urlsafe(48)
    purchase = GuestPurchase(
        token=token,
        landing_id=page.id,
        contact_type=request.contact_type,
        contact_value=request.contact_value,
        is_gift=request.is_gift,
        gift_recipient_type=request.gift_recipient_type if request.is_gift else None,
        gift_recipient_value=request.gift_recipient_value if request.is_gift else None,
        gift_message=request.gift_message if request.is_gift else None,
        tariff_id=tariff.id,
        tariff_name=tariff.name,
        period_days=request.period_days,
        amount_kopeks=price.final,
        payment_method=request.payment_method,
        referrer=request.referrer,
        source=request.campaign_slug or request.subid,
    )
    session.add(purchase)
    await session.flush()
    try:
        payment = await open_payment(
            app, session, provider, payer, method["method_id"], price.final, KEY_PREFIX + token,
            option=found[1], data={"purpose": PURPOSE, "purchase_token": token},
            return_url=_return_url(app, method, token),
        )  # fmt: skip
    except ProviderError:
        purchase.status = FAILED
        session.add(purchase)
        await session.commit()
        raise Refused(502, PROVIDER_DOWN) from None
    purchase.payment_id = payment.id
    session.add(purchase)
    await session.commit()
    return token, str(payment.data.get("payment_url") or "")


async def _locked(session: AsyncSession, event: Event) -> tuple[Payment, GuestPurchase] | None:
    """The guest purchase a payment event is about, its row locked (``None``: not one)."""
    payment = await session.get(Payment, int(event.payload["payment_id"]))
    if payment is None or payment.data.get("purpose") != PURPOSE:
        return None
    purchase = await lock_purchase(session, str(payment.data["purchase_token"]))
    return (payment, purchase) if purchase is not None else None


async def on_topped_up(app: Starlette, event: Event) -> None:
    """``balance.topped_up``: a guest purchase's payment completes it (a repeat finds it done)."""
    async with services(app).db.session() as session:
        found = await _locked(session, event)
        if found is not None and completable(found[1]):
            await complete_paid(app, session, found[1], found[0])
            await session.commit()


async def on_payment_failed(app: Starlette, event: Event) -> None:
    """``payment.failed``: a pending guest purchase whose payment ended unpaid is ``expired``
    (the payment expired) or ``failed``; no account was made for it. A payment paid after all
    still completes it."""
    async with services(app).db.session() as session:
        found = await _locked(session, event)
        if found is None or found[1].status != PENDING or found[0].status == PAYMENT_SUCCEEDED:
            return
        payment, purchase = found
        purchase.status = EXPIRED if payment.status == PAYMENT_EXPIRED else FAILED
        session.add(purchase)
        await session.commit()


def completable(purchase: GuestPurchase) -> bool:
    """Not paid yet: pending, or ended unpaid (money that arrives late still completes it)."""
    return purchase.paid_at is None and purchase.status in (PENDING, EXPIRED, FAILED)


async def complete_if_paid(app: Starlette, session: AsyncSession, purchase: GuestPurchase) -> None:
    """Complete a purchase whose payment is credited but not yet reported to us (a status poll
    before the event): the caller holds the purchase's lock."""
    if purchase.payment_id is None or not completable(purchase):
        return
    payment = await session.get(Payment, purchase.payment_id, populate_existing=True)
    if payment is not None and payment.status == PAYMENT_SUCCEEDED and payment.transaction_id is not None:
        await complete_paid(app, session, purchase, payment)


def _failed(session: AsyncSession, purchase: GuestPurchase, why: str) -> None:
    log.warning("guest purchase %s paid, not delivered: %s", purchase.id, why)
    purchase.status = FAILED
    session.add(purchase)


async def complete_paid(
    app: Starlette, session: AsyncSession, purchase: GuestPurchase, payment: Payment
) -> None:
    """Debit the price from the account the payment credited and deliver: a purchase for
    oneself to the contact's account, found or made now (a new e-mail's one-time password kept
    for the status page); a gift becomes ``paid``, claimable. A payment of another amount, or a
    tariff that no longer prices the period, leaves it ``failed`` with nothing debited (the
    money stays on the payment account for an administrator to refund). The caller holds the
    purchase's lock and saw it :func:`completable`."""
    tariff = await find_tariff(session, purchase.tariff_id) if purchase.tariff_id is not None else None
    paid = payment.paid_amount_kopeks if payment.paid_amount_kopeks is not None else payment.amount_kopeks
    if (
        paid != purchase.amount_kopeks
        or tariff is None
        or str(purchase.period_days) not in tariff.period_prices
    ):
        return _failed(session, purchase, "another amount, or the tariff no longer prices the period")
    recipient: Account | None = None
    if not purchase.is_gift:
        try:
            recipient = await account_for(app, session, purchase.contact_type, purchase.contact_value)
        except ContactRefused:
            return _failed(session, purchase, "its contact names no account")
    kind = "gift_payment" if purchase.is_gift else "subscription_payment"
    try:
        await move_balance(
            session,
            services(app).events,
            payment.user_id,
            -purchase.amount_kopeks,
            type=kind,
            description=f"Покупка с лендинга: {purchase.tariff_name}, {purchase.period_days} дн.",
            payment_method="balance",
            external_id=f"guest-purchase-{purchase.id}",
        )
    except InsufficientBalance:
        return _failed(session, purchase, "the payment's balance no longer covers it")
    purchase.paid_at = utcnow()
    purchase.status = PAID
    session.add(purchase)
    if recipient is None:
        return
    purchase.buyer_user_id = recipient.user.id
    await deliver_to(app, session, purchase, recipient)

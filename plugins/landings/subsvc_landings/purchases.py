"""Guest purchases: created from a landing page and paid at a provider through the payments
plugin (``purpose=guest_purchase`` and the token in its data, idempotency key
``guest:<token>``); once ``balance.topped_up`` reports the payment,
the price is debited from the buyer's account and the subscription delivered (a gift waits for
its claim) — once, under the purchase's row lock."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import InsufficientBalance, change_balance, record_transaction
from subsvc_payments.api import Payment, ProviderError, open_payment, provider_for
from subsvc_tariffs.api import find_tariff

from subsvc.db import utcnow
from subsvc.events import Event
from subsvc.services import services
from subsvc_landings.accounts import ContactRefused, account_for
from subsvc_landings.catalogue import method_of, periods_of, price_of
from subsvc_landings.delivery import deliver, lock_purchase
from subsvc_landings.models import FAILED, PAID, PENDING, GuestPurchase, LandingPage
from subsvc_landings.schemas import PurchaseRequest
from subsvc_landings.settings import LandingsSettings

KEY_PREFIX = "guest:"
PURPOSE = "guest_purchase"
log = logging.getLogger(__name__)

GIFTS_OFF = "Gift purchases are not enabled for this landing page"
METHOD_UNAVAILABLE = "Payment method is not available on this landing page"
TARIFF_UNAVAILABLE = "Tariff is not available on this landing page"
TARIFF_INACTIVE = "Tariff not found or inactive"
PERIOD_UNAVAILABLE = "Period is not available for this tariff on this landing page"
NO_PRICE = "Price is not configured for this period"
RECIPIENT_NEEDED = "Gift recipient is required for a gift purchase"
PROVIDER_DOWN = "Payment provider is unavailable, please try again later"


class PurchaseRefused(Exception):
    """A purchase request the rules refuse: ``status`` and the ``detail`` text."""

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
    (commits); answers the token and the payment URL. Raises :class:`PurchaseRefused`."""
    if request.is_gift and not page.gift_enabled:
        raise PurchaseRefused(400, GIFTS_OFF)
    if request.is_gift and not (request.gift_recipient_type and request.gift_recipient_value):
        raise PurchaseRefused(400, RECIPIENT_NEEDED)
    found = method_of(page, request.payment_method)
    method = found[0] if found else None
    provider = await provider_for(app, method["method_id"]) if method else None
    if found is None or method is None or provider is None:
        raise PurchaseRefused(400, METHOD_UNAVAILABLE)
    if request.tariff_id not in (page.config.get("allowed_tariff_ids") or []):
        raise PurchaseRefused(400, TARIFF_UNAVAILABLE)
    tariff = await find_tariff(session, request.tariff_id)
    if tariff is None or not tariff.is_active:
        raise PurchaseRefused(400, TARIFF_INACTIVE)
    if request.period_days not in periods_of(page, tariff):
        raise PurchaseRefused(400, PERIOD_UNAVAILABLE)
    price = price_of(page, tariff, request.period_days, utcnow())
    if price is None:
        raise PurchaseRefused(400, NO_PRICE)
    low, high = method.get("min_amount_kopeks"), method.get("max_amount_kopeks")
    if low is not None and price.final < low:
        raise PurchaseRefused(
            400, f"Amount is below the minimum ({_rubles(low)} RUB) for this payment method"
        )
    if high is not None and price.final > high:
        raise PurchaseRefused(
            400, f"Amount exceeds the maximum ({_rubles(high)} RUB) for this payment method"
        )
    try:
        account = await account_for(app, session, request.contact_type, request.contact_value)
    except ContactRefused as refused:
        raise PurchaseRefused(400, str(refused)) from None
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
        buyer_user_id=account.user.id,
        new_account=account.password is not None and not request.is_gift,
        cabinet_email=account.user.email if account.password and not request.is_gift else None,
        cabinet_password=account.password if not request.is_gift else None,
        referrer=request.referrer,
        source=request.campaign_slug or request.subid,
    )
    session.add(purchase)
    await session.flush()
    assert account.user.id is not None
    try:
        payment = await open_payment(
            app, session, provider, account.user.id, method["method_id"], price.final, KEY_PREFIX + token,
            option=found[1], data={"purpose": PURPOSE, "purchase_token": token},
            return_url=_return_url(app, method, token),
        )  # fmt: skip
    except ProviderError:
        purchase.status = FAILED
        session.add(purchase)
        await session.commit()
        raise PurchaseRefused(502, PROVIDER_DOWN) from None
    purchase.payment_id = payment.id
    session.add(purchase)
    await session.commit()
    return token, str(payment.data.get("payment_url") or "")


async def on_topped_up(app: Starlette, event: Event) -> None:
    """``balance.topped_up``: a guest purchase's payment completes it (a repeat finds it done)."""
    async with services(app).db.session() as session:
        payment = await session.get(Payment, int(event.payload["payment_id"]))
        if payment is None or payment.data.get("purpose") != PURPOSE:
            return
        purchase = await lock_purchase(session, str(payment.data["purchase_token"]))
        if purchase is None or purchase.status != PENDING:
            return
        await complete_paid(app, session, purchase, payment.user_id)
        await session.commit()


async def complete_paid(
    app: Starlette, session: AsyncSession, purchase: GuestPurchase, buyer_id: int
) -> None:
    """Debit the price from the buyer's credited balance and deliver (a gift becomes ``paid``,
    claimable). The caller holds the purchase's lock and saw it ``pending``."""
    kind = "gift_payment" if purchase.is_gift else "subscription_payment"
    try:
        _, balance = await change_balance(session, buyer_id, -purchase.amount_kopeks)
    except InsufficientBalance:
        log.warning("guest purchase %s: the buyer's balance no longer covers it", purchase.id)
        purchase.status = FAILED
        session.add(purchase)
        return
    await record_transaction(
        session,
        services(app).events,
        user_id=buyer_id,
        type=kind,
        amount_kopeks=purchase.amount_kopeks,
        new_balance_kopeks=balance,
        description=f"Покупка с лендинга: {purchase.tariff_name}, {purchase.period_days} дн.",
        payment_method="balance",
        external_id=f"guest-purchase-{purchase.id}",
    )
    purchase.paid_at = utcnow()
    purchase.status = PAID
    session.add(purchase)
    if not purchase.is_gift:
        await deliver(app, session, purchase, buyer_id)

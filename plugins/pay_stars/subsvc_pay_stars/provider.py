"""The Stars provider: invoices made through the Bot API (``createInvoiceLink``), payments
reported by the bot's updates, authenticated by the Bot API's webhook secret header. There is
no status API: a payment is known paid only when its update arrives (``checkable`` false)."""

from __future__ import annotations

import hmac
import logging

from sqlmodel import col, select
from starlette.applications import Starlette
from subsvc_payments.api import (
    EXPIRED,
    PENDING,
    IncomingNotification,
    Notification,
    NotificationRefused,
    Payment,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
)

from subsvc.messenger import MessengerError, MessengerUnavailable
from subsvc.services import services
from subsvc_pay_stars.invoices import CURRENCY, Invoice
from subsvc_pay_stars.settings import StarsSettings
from subsvc_pay_stars.updates import CheckoutQuery, Paid, read_update

log = logging.getLogger("subsvc.pay_stars")
NAME = "messenger_stars"
SECRET_HEADER = "x-telegram-bot-api-secret-token"  # noqa: S105 (a header's name)
PAYABLE = (PENDING, EXPIRED)
"""A payment whose invoice may still be paid: pending, or expired here (paid late, credited)."""
NOT_PAYABLE = "Этот счёт уже оплачен или больше не действует. Создайте новый в личном кабинете."


class StarsProvider:
    """Stars at the messenger of ``app`` (its Bot API client), with ``settings``."""

    name = NAME
    checkable = False

    def __init__(self, app: Starlette, settings: StarsSettings) -> None:
        self.app = app
        self.settings = settings

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        """An invoice link for the payment: whole stars at the rate, payload naming it."""
        invoice = Invoice.for_payment(request.payment_id, request.amount_kopeks, self.settings.STARS_RATE_RUB)
        params: dict[str, object] = {
            "title": self.settings.STARS_INVOICE_TITLE,
            "description": request.description[:255],
            "payload": invoice.payload,
            "provider_token": "",
            "currency": CURRENCY,
            "prices": [{"label": self.settings.STARS_INVOICE_TITLE, "amount": invoice.stars}],
        }
        try:
            link = await services(self.app).messenger.call("createInvoiceLink", params)
        except MessengerError as error:
            raise ProviderError(f"the messenger's createInvoiceLink failed: {error.description}") from error
        if not isinstance(link, str) or not link:
            raise ProviderError("the messenger's createInvoiceLink answered no link")
        data = {"stars": invoice.stars, "stars_rate_rub": str(self.settings.STARS_RATE_RUB)}
        return ProviderPayment(invoice.payload, link, data=data)

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        """Not available: the messenger reports a Stars payment only through the bot's update."""
        raise ProviderError("Stars payments have no status to ask for: the bot reports them paid")

    async def verify_notification(self, notification: IncomingNotification) -> Notification | None:
        """An Update forwarded by the bot (or posted by the messenger): its secret header
        checked (401), then a paid invoice of ours reported, a pre-checkout query of ours
        answered (``None``), anything else ``None``."""
        secret = notification.headers.get(SECRET_HEADER, "").encode()
        expected = (self.settings.STARS_WEBHOOK_SECRET or "").encode()
        if not expected or not hmac.compare_digest(secret, expected):
            raise NotificationRefused(401, "invalid_secret_token")
        found = read_update(notification.body)
        if isinstance(found, CheckoutQuery):
            await self._answer(found)
            return None
        if found is None:
            return None
        await self._note_paid_again(found)
        return Notification(found.invoice.payload, found.status())

    async def _note_paid_again(self, paid: Paid) -> None:
        """An invoice paid again after its payment was settled (a bot that let the payer
        through pre-checkout) credits nothing more: the second charge is logged, with what a
        refund (``refundStarPayment``) needs."""
        payment = await self._payment(paid.invoice)
        if payment is None or payment.status in PAYABLE:
            return
        first = payment.data.get("paid_notification", {}).get("telegram_payment_charge_id")
        charge = paid.raw["telegram_payment_charge_id"]
        if first is not None and first != charge:
            log.error(
                "Stars invoice %s paid again by %s (charge %s; first charge %s): not credited, refund it",
                paid.invoice.payload,
                paid.raw["payer_id"],
                charge,
                first,
            )

    async def _answer(self, query: CheckoutQuery) -> None:
        """Let the payer pay an invoice of ours that asks its stars and whose payment is still
        pending (or expired here); refuse, with a message the payer reads, any other."""
        payment = await self._payment(query.invoice)
        payable = query.matches() and payment is not None and payment.status in PAYABLE
        answer: dict[str, object] = {"pre_checkout_query_id": query.query_id, "ok": payable}
        if not payable:
            answer["error_message"] = NOT_PAYABLE
            log.warning("Stars pre-checkout of %s refused", query.invoice.payload)
        try:
            await services(self.app).messenger.call("answerPreCheckoutQuery", answer)
        except MessengerUnavailable as error:
            raise ProviderError(
                f"the messenger's answerPreCheckoutQuery failed: {error.description}"
            ) from error
        except MessengerError as error:  # answered already, or too late: nothing to retry
            log.warning("Stars pre-checkout %s not answered: %s", query.query_id, error.description)

    async def _payment(self, invoice: Invoice) -> Payment | None:
        """The payment of an invoice of ours, as committed now."""
        query = select(Payment).where(
            col(Payment.provider) == NAME, col(Payment.provider_payment_id) == invoice.payload
        )
        async with services(self.app).db.session(read_only=True) as session:
            return (await session.exec(query)).first()

"""The YooKassa provider the payments core calls: creates a payment, reads one, and verifies
a notification — by its sender's address, then by asking the API for the payment, since
YooKassa signs nothing: the notification's body is never trusted, only the API's answer."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Sequence
from ipaddress import IPv4Network, IPv6Network

from sqlmodel import col, select
from starlette.applications import Starlette
from subsvc_payments.api import (
    IncomingNotification,
    Notification,
    NotificationRefused,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
)
from subsvc_users.api import User

from subsvc.services import services
from subsvc_pay_yookassa.client import YookassaApi
from subsvc_pay_yookassa.protocol import (
    NAME,
    TEST_REFUSED,
    Receipt,
    created,
    notified_payment,
    payment_body,
    status_of,
)
from subsvc_pay_yookassa.settings import YookassaSettings

log = logging.getLogger("subsvc.pay_yookassa")


def check_source(client_ip: str | None, allowed: Sequence[IPv4Network | IPv6Network]) -> None:
    """Refuse (403) a sender outside ``allowed``: ``unknown_ip`` without an address,
    ``forbidden_ip`` for another one (an IPv4 address a dual-stack socket maps into IPv6,
    ``::ffff:a.b.c.d``, is that IPv4 address)."""
    if client_ip is None:
        raise NotificationRefused(403, "unknown_ip")
    try:
        address = ipaddress.ip_address(client_ip)
    except ValueError:
        raise NotificationRefused(403, "unknown_ip") from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if not any(address in network for network in allowed):
        raise NotificationRefused(403, "forbidden_ip")


class YookassaProvider:
    """YooKassa for one app, built from its settings."""

    name = NAME
    checkable = True

    def __init__(self, app: Starlette, settings: YookassaSettings) -> None:
        self.app = app
        self.settings = settings
        self.api = YookassaApi(app, settings)

    async def receipt(self, user_id: int) -> Receipt | None:
        """The fiscal receipt: to the user's verified e-mail, else to the default one; none
        without either."""
        query = select(col(User.email)).where(col(User.id) == user_id, col(User.email_verified).is_(True))
        async with services(self.app).db.session(read_only=True) as session:
            email = (await session.exec(query)).first() or self.settings.YOOKASSA_DEFAULT_RECEIPT_EMAIL
        if not email:
            return None
        settings = self.settings
        return Receipt(
            email,
            settings.YOOKASSA_VAT_CODE,
            settings.YOOKASSA_PAYMENT_MODE,
            settings.YOOKASSA_PAYMENT_SUBJECT,
        )

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        """``POST /payments`` with the request's idempotence key (a retry makes no second
        payment at YooKassa); the payer confirms at its ``confirmation_url``."""
        save_card = self.settings.YOOKASSA_RECURRENT_ENABLED
        body = payment_body(request, receipt=await self.receipt(request.user_id), save_card=save_card)
        return created(await self.api.create_payment(body, request.idempotence_key))

    async def _status(self, payment_id: str) -> ProviderStatus | None:
        """The payment as YooKassa's API reports it (:func:`status_of`); ``None`` when the
        API knows no such payment of this shop."""
        payment = await self.api.get_payment(payment_id)
        if payment is None:
            return None
        status = status_of(payment, test_mode=self.settings.YOOKASSA_TEST_MODE)
        if status.raw.get("id") != payment_id:
            raise ProviderError(f"YooKassa answered another payment than {payment_id}")
        if status.reason and status.reason.startswith(TEST_REFUSED):
            log.warning("YooKassa test payment %s not credited: YOOKASSA_TEST_MODE is off", payment_id)
        return status

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        """The payment's status at YooKassa."""
        status = await self._status(provider_payment_id)
        if status is None:
            raise ProviderError(f"YooKassa knows no payment {provider_payment_id}")
        return status

    async def verify_notification(self, notification: IncomingNotification) -> Notification | None:
        """From an allowed address (403 otherwise), a readable notification (400) about a
        payment's status: the payment is fetched and its status there is what applies.
        Another event, or a payment YooKassa does not know, changes nothing (``None``)."""
        check_source(notification.client_ip, self.settings.YOOKASSA_ALLOWED_SOURCES)
        payment_id = notified_payment(notification.body)
        if payment_id is None:
            return None
        status = await self._status(payment_id)
        if status is None:
            log.warning("YooKassa notified payment %s, which its API does not know", payment_id)
            return None
        return Notification(payment_id, status)

"""What a provider plugin implements: a :class:`PaymentProvider` that creates a payment at
its provider, fetches a payment's status and verifies the provider's notifications, found by
the cabinet's method id through the ``payments_provider`` hook. A provider's failure is a
:class:`ProviderError` (answered 502); a notification it cannot trust is a
:class:`NotificationRefused`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from starlette.applications import Starlette

from subsvc.services import services


@dataclass(frozen=True)
class PaymentMethodInfo:
    """A payment method a provider plugin offers the cabinet's top-up screen: its ``id``
    (the provider's name, e.g. ``yookassa``), the name and description shown, the amounts
    it takes, its sub-options (``[{"id", "name", "description"}]``, e.g. card and SBP) and
    the amounts offered as one-tap choices."""

    id: str
    name: str
    min_amount_kopeks: int
    max_amount_kopeks: int
    description: str | None = None
    options: Sequence[Mapping[str, Any]] | None = None
    quick_amounts: Sequence[int] = field(default_factory=tuple)
    open_url_direct: bool = False


ProviderState = Literal["pending", "paid", "failed", "canceled", "expired"]
"""A payment's state as its provider reports it."""


class ProviderError(Exception):
    """The provider is down or refused the request: answered 502 with this message."""


@dataclass(frozen=True)
class ProviderPaymentRequest:
    """A payment to create at the provider: the local ``payment_id``, what to ask, where the
    provider sends the payer back (``return_url``, may be ``None``) and the idempotence key
    the provider deduplicates retries by (stable per local payment)."""

    payment_id: int
    user_id: int
    method: str
    option: str | None
    amount_kopeks: int
    currency: str
    description: str
    return_url: str | None
    idempotence_key: str


@dataclass(frozen=True)
class ProviderPayment:
    """The provider's answer to a creation: its payment id, the URL the payer confirms at,
    its own expiry if it sets one, and what to keep in the payment's ``data``."""

    provider_payment_id: str
    payment_url: str
    expires_at: datetime | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProviderStatus:
    """A payment's status at the provider: ``paid`` with the paid amount and currency, an
    unpaid end (``failed``, ``canceled``, ``expired``) with its reason, or still ``pending``;
    ``raw`` is what the provider answered (kept in the payment's data)."""

    state: ProviderState
    paid_amount_kopeks: int | None = None
    currency: str | None = None
    reason: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class IncomingNotification:
    """A notification as it reached the provider's endpoint: its headers (lower-case names),
    its raw body, and the client's address (``TRUSTED_PROXIES`` applied; ``None`` if unknown)."""

    headers: Mapping[str, str]
    body: bytes
    client_ip: str | None


@dataclass(frozen=True)
class Notification:
    """What a verified notification says: the provider's payment id and its status there."""

    provider_payment_id: str
    status: ProviderStatus


class NotificationRefused(Exception):
    """A notification that cannot be trusted (forged, replayed, from a foreign address) or
    read: answered ``status`` (401, 403 or 400) with ``reason``, and nothing changes."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class PaymentProvider(Protocol):
    """One provider, as a provider plugin gives it: its ``name`` (the ``provider`` of its
    payments, the method id of the cabinet), whether ``fetch`` can report a payment's status
    (``checkable``: manual checks and the polling job ask it), and its calls, which raise
    :class:`ProviderError` when the provider is down or refuses."""

    name: str
    checkable: bool

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        """Create the payment at the provider."""
        ...

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        """The payment's status at the provider."""
        ...

    async def verify_notification(self, notification: IncomingNotification) -> Notification | None:
        """Verify and read a notification: what it says of a payment, or ``None`` for one
        that says nothing to act on (another event type, a probe). Raises
        :class:`NotificationRefused` for one that cannot be trusted or read, and
        :class:`ProviderError` when the provider must be asked and does not answer."""
        ...


async def provider_for(app: Starlette, method: str) -> PaymentProvider | None:
    """The configured provider serving the cabinet's method id ``method``, if any."""
    found: PaymentProvider | None = await services(app).plugins.first_result(
        "payments_provider", app=app, method=method
    )
    return found


async def offered_methods(app: Starlette) -> dict[str, PaymentMethodInfo]:
    """The methods every configured provider plugin offers, by id, each id once (the first
    plugin's), in the plugins' order."""
    answers = await services(app).plugins.call_all("payments_providers", app=app)
    listed: dict[str, PaymentMethodInfo] = {}
    for methods in answers:
        for method in methods:
            listed.setdefault(method.id, method)
    return listed

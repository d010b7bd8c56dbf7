"""What a provider plugin implements: a :class:`PaymentProvider` that creates a payment at
its provider and fetches a payment's status, found by the cabinet's method id through the
``payments_provider`` hook. A provider's failure is a :class:`ProviderError` (answered 502)."""

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


class PaymentProvider(Protocol):
    """One provider, as a provider plugin gives it: its ``name`` (the ``provider`` of its
    payments, the method id of the cabinet) and its two calls, which raise
    :class:`ProviderError` when the provider is down or refuses."""

    name: str

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        """Create the payment at the provider."""
        ...

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        """The payment's status at the provider."""
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

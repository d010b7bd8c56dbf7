"""What other plugins (the payment providers first) may use of the payments plugin.

- :func:`create_payment`: a pending payment of a provider (idempotent per user and key);
  :func:`attach_provider_payment` records the provider's id once it has answered.
- :func:`credit_paid`: a paid provider payment credits its user exactly once;
  :func:`mark_failed`: it ended unpaid. Both answer an :class:`Outcome`.
- :func:`apply_status`: what a provider reports of a payment (paid, ended unpaid, pending),
  applied through the two above.
- for a provider plugin: :class:`PaymentMethodInfo` (its methods), :class:`PaymentProvider`
  (its ``create`` / ``fetch`` / ``verify_notification``, with :class:`ProviderPaymentRequest`,
  :class:`ProviderPayment`, :class:`ProviderStatus`, :class:`IncomingNotification`,
  :class:`Notification`), :class:`ProviderError` (answered 502) and
  :class:`NotificationRefused`; :func:`notification_endpoint` (its notification route) and
  :func:`refuse_stale`; :class:`ProviderSettings` (the base of its settings: its amount
  limits in order); :func:`provider_http` (its API client, :class:`ProviderHttp`, whose
  4xx answers are :class:`ProviderRefused`); :func:`kopeks_of`, :func:`rubles_text` and
  :func:`exact_json` (amounts as providers write them, exact).
- for a provider plugin's own creation endpoint (e.g. a Stars invoice): :func:`open_payment`,
  the top-up's way of creating a payment at a provider, :data:`IdempotencyKey`, the
  optional header such an endpoint takes, and :func:`offered_to`, the method as the
  administrators configured it for that user (``None``: not offered to them — disabled or
  filtered out), a :class:`Method` (its ``name``, ``limits``, ``options``...).
- :func:`provider_for`: the configured provider serving a method id (``None``: none is
  installed and configured), for the plugins that need to know a provider is there.
- the cabinet's top-up for another front end (the mini app): :func:`user_methods` (the
  methods a user may pay with, in order) and :func:`create_topup` (a
  :class:`TopUpRequest` answered as a :class:`TopUpResponse`; 400 texts as the cabinet's).
- :class:`Payment`, the ORM model, for reading (only this plugin writes it), and its statuses.
"""

from __future__ import annotations

from subsvc_payments.crediting import (
    BALANCE_TOPPED_UP,
    PAYMENT_FAILED,
    PAYMENT_SUCCEEDED,
    Outcome,
    apply_status,
    credit_paid,
    mark_failed,
)
from subsvc_payments.http import ProviderHttp, ProviderRefused, exact_json, provider_http
from subsvc_payments.methods import Method, offered_to, user_methods
from subsvc_payments.models import (
    CANCELED,
    EXPIRED,
    FAILED,
    PENDING,
    REFUSED_MISMATCH,
    STATUSES,
    SUCCEEDED,
    Payment,
)
from subsvc_payments.money import kopeks_of, rubles_text
from subsvc_payments.notifications import notification_endpoint, refuse_stale
from subsvc_payments.provider_settings import ProviderSettings
from subsvc_payments.providers import (
    IncomingNotification,
    Notification,
    NotificationRefused,
    PaymentMethodInfo,
    PaymentProvider,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
    provider_for,
)
from subsvc_payments.records import (
    IdempotencyConflict,
    PaymentNotFound,
    attach_provider_payment,
    create_payment,
)
from subsvc_payments.schemas import IdempotencyKey, TopUpRequest, TopUpResponse
from subsvc_payments.topup import TopUpInProgress, create_topup, open_payment

__all__ = [
    "BALANCE_TOPPED_UP",
    "CANCELED",
    "EXPIRED",
    "FAILED",
    "PAYMENT_FAILED",
    "PAYMENT_SUCCEEDED",
    "PENDING",
    "REFUSED_MISMATCH",
    "STATUSES",
    "SUCCEEDED",
    "IdempotencyConflict",
    "IdempotencyKey",
    "IncomingNotification",
    "Method",
    "Notification",
    "NotificationRefused",
    "Outcome",
    "Payment",
    "PaymentMethodInfo",
    "PaymentNotFound",
    "PaymentProvider",
    "ProviderError",
    "ProviderHttp",
    "ProviderPayment",
    "ProviderPaymentRequest",
    "ProviderRefused",
    "ProviderSettings",
    "ProviderStatus",
    "TopUpInProgress",
    "TopUpRequest",
    "TopUpResponse",
    "apply_status",
    "attach_provider_payment",
    "create_payment",
    "create_topup",
    "credit_paid",
    "exact_json",
    "kopeks_of",
    "mark_failed",
    "notification_endpoint",
    "offered_to",
    "open_payment",
    "provider_for",
    "provider_http",
    "refuse_stale",
    "rubles_text",
    "user_methods",
]

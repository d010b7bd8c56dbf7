"""Extension points of the payments plugin, for the payment provider plugins."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette

from subsvc.hookspecs import hookspec
from subsvc_payments.providers import PaymentMethodInfo, PaymentProvider

__all__ = ["PaymentMethodInfo", "PaymentProvider", "payments_provider", "payments_providers"]


@hookspec
def payments_providers(app: Starlette) -> Sequence[PaymentMethodInfo] | None:
    """Return the payment methods of a provider plugin, for ``app``: none (``None`` or an
    empty list) while the provider is not configured. Called on every
    ``GET /cabinet/balance/payment-methods``, in the plugins' order; read settings, not the
    network. A method id answered by an earlier plugin is not listed twice."""


@hookspec(firstresult=True)
def payments_provider(app: Starlette, method: str) -> PaymentProvider | None:
    """Return the provider serving the cabinet's method id ``method`` (its ``name``), or
    ``None`` when the plugin does not serve it or is not configured. Top-up calls its
    ``create``, a check its ``fetch``; both raise ``ProviderError`` when the provider is down
    or refuses. The first plugin answering wins."""
